import { eventually, startStack, type RunningStack } from '@seed/platform-testing';
import { request, sendBatch, ukMobile, type Account } from './support/http';
import { messageInState } from './support/sms-read';
import { generate } from './support/verify';
import { smsc } from './support/smsc';
import { useStarted } from './support/stack';
import { setDefaultUrl } from './support/webhook-admin';
import { verifiesWith, WebhookReceiver, type ReceivedWebhook } from './support/webhook-receiver';

interface InboundBody {
  namespace: string;
  eventType: string;
  description: string;
  payload: { umid: string; subAccountId: string; source: string; destination: string; body: string; encoding: string; smsCount: number; timestamp: string; incomplete: boolean };
}

/**
 * Two-way SMS through the whole stack: the simulated carrier originates inbound SMS (its POST
 * /inbound) to a number assigned to a sub-account; the customer's endpoint gets each once, signed;
 * STOP and START from the handset decide whether the sub-account's messages reach it.
 */
describe('two-way SMS', () => {
  let receiver: WebhookReceiver;
  const ctx = useStarted(async () => {
    receiver = await WebhookReceiver.start();
    return startStack({ WEBHOOK_ALLOWED_HOSTS: `127.0.0.1:${receiver.port}`, SMSC_RECEIPT_DELAY_MS: '50' });
  });
  let stack: RunningStack;
  let account: Account;
  let secret: string;
  const NUMBER = ukMobile(64_000);

  const originate = async (body: Record<string, unknown>) => {
    const res = await request(`${stack.smscUrl}/inbound`, { method: 'POST', body: { destination: NUMBER, ...body } });
    if (res.status !== 201) throw new Error(`POST /inbound: ${res.status} ${await res.text()}`);
    return (await res.json()) as { id: string; deliveries: { response: { status: number } | null }[] };
  };
  const inboundWebhooks = (text?: string): ReceivedWebhook[] =>
    receiver.accepted('/two-way').filter((r) => {
      const body = JSON.parse(r.body) as InboundBody;
      return body.eventType === 'inbound_message_received' && (text === undefined || body.payload.body === text);
    });
  const arrived = (text: string) => eventually(async () => (inboundWebhooks(text).length > 0 ? inboundWebhooks(text) : undefined), 20_000);
  const optOutOf = (msisdn: string) =>
    request(`${stack.adminUrl}/admin/v1/accounts/${account.accountId}/sub-accounts/${account.subAccountId}/opt-outs/${msisdn}`, { method: 'GET', token: stack.adminToken });

  beforeAll(async () => {
    stack = ctx.stack;
    account = await stack.createAccount();
    secret = await setDefaultUrl(stack, account.accountId, receiver.url('/two-way'));
    const res = await request(`${stack.adminUrl}/admin/v1/numbers/${NUMBER}`, { method: 'PUT', token: stack.adminToken, body: { accountId: account.accountId, subAccountId: account.subAccountId } });
    expect(res.status).toBe(200);
  });
  afterAll(async () => {
    await receiver?.close();
  });

  it('posts an inbound SMS to the account’s endpoint once, signed, and lists it', async () => {
    const handset = ukMobile(64_001);
    await eventually(async () => ((await originate({ source: handset, text: 'Is my parcel coming today?' })) ? true : undefined));
    const [webhook, ...more] = await arrived('Is my parcel coming today?');
    expect(more).toEqual([]);
    const body = JSON.parse(webhook?.body as string) as InboundBody;
    expect(body).toEqual({
      namespace: 'SMS',
      eventType: 'inbound_message_received',
      description: 'Inbound message received',
      payload: { umid: expect.any(String), subAccountId: account.subAccountId, source: handset, destination: NUMBER, body: 'Is my parcel coming today?', encoding: 'GSM7', smsCount: 1, timestamp: expect.any(String), incomplete: false },
    });
    expect(verifiesWith(secret, webhook?.headers['x-seed-signature'], webhook?.body as string)).toBe(true);
    const page = (await (await request(`${stack.messagingUrl}/sms/v1/${account.subAccountId}/inbound`, { method: 'GET', token: account.apiKey })).json()) as { messages: { umid: string; body: string }[] };
    expect(page.messages[0]).toMatchObject({ umid: body.payload.umid, body: 'Is my parcel coming today?' });
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(inboundWebhooks('Is my parcel coming today?')).toHaveLength(1);
  });

  it('joins a 3-part UCS-2 message with an emoji split across parts, sent out of order, into one post', async () => {
    const text = 'Привет! 😀 Can you call me back about the order? Thanks a lot, see you tomorrow at the shop ok';
    await originate({ source: ukMobile(64_002), text, encoding: 'ucs2', parts: 3, order: 'reverse' });
    const [webhook, ...more] = await arrived(text);
    expect(more).toEqual([]);
    expect((JSON.parse(webhook?.body as string) as InboundBody).payload).toMatchObject({ encoding: 'UCS2', smsCount: 3, incomplete: false });
  });

  it('does not post twice the message the carrier sends again after a lost deliver_sm_resp', async () => {
    const sent = await originate({ source: ukMobile(64_003), text: 'Sent twice by the carrier', loseFirstResponse: true, resendAfterMs: 300 });
    await arrived('Sent twice by the carrier');
    const view = await eventually(async () => {
      const res = await request(`${stack.smscUrl}/inbound/${sent.id}`, { method: 'GET' });
      const current = (await res.json()) as { deliveries: { response: { status: number } | null }[] };
      return current.deliveries.length === 2 && current.deliveries.every((d) => d.response !== null) ? current : undefined;
    });
    expect(view.deliveries.map((d) => d.response?.status)).toEqual([0, 0]);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(inboundWebhooks('Sent twice by the carrier')).toHaveLength(1);
  });

  it('STOP keeps the sub-account’s messages from the handset (OPTED_OUT, never at the carrier); START lets them through again', async () => {
    const handset = ukMobile(64_004);
    await originate({ source: handset, text: 'stop' });
    await eventually(async () => ((await optOutOf(handset)).status === 200 ? true : undefined));
    await new Promise((resolve) => setTimeout(resolve, 2500)); // every sender's set refreshes each second
    const blocked = await sendBatch(stack, account, { messages: [{ destination: `+${handset}`, text: 'Your parcel arrives today' }], includeMessagesInResponse: true });
    const ended = await messageInState(stack, account, blocked.messages?.[0]?.umid as string, 'undelivered');
    expect(ended.status).toMatchObject({ state: 'undelivered', errorCode: 'OPTED_OUT' });
    expect(await smsc(stack.smscUrl).messages(handset)).toEqual([]);

    await originate({ source: handset, text: 'START' });
    await eventually(async () => ((await optOutOf(handset)).status === 404 ? true : undefined));
    await new Promise((resolve) => setTimeout(resolve, 2500));
    const sent = await sendBatch(stack, account, { messages: [{ destination: `+${handset}`, text: 'Your parcel arrives tomorrow' }], includeMessagesInResponse: true });
    await messageInState(stack, account, sent.messages?.[0]?.umid as string, 'delivered');
    expect((await smsc(stack.smscUrl).only(handset)).text).toBe('Your parcel arrives tomorrow');
  });

  it('an operator’s opt-out keeps single sends and Verify codes from the recipient too', async () => {
    const handset = ukMobile(64_005);
    const optOut = await request(`${stack.adminUrl}/admin/v1/accounts/${account.accountId}/sub-accounts/${account.subAccountId}/opt-outs/${handset}`, { method: 'PUT', token: stack.adminToken });
    expect(optOut.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 2500));
    const single = await request(`${stack.messagingUrl}/api/v1/subaccounts/${account.subAccountId}/messages`, { token: account.apiKey, body: { destination: `+${handset}`, text: 'One message' } });
    expect(single.status).toBe(200);
    const { umid } = (await single.json()) as { umid: string };
    expect((await messageInState(stack, account, umid, 'undelivered')).status).toMatchObject({ errorCode: 'OPTED_OUT' });
    await generate(stack, account, { destination: handset });
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect(await smsc(stack.smscUrl).messages(handset)).toEqual([]);
  });
});
