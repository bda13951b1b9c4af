import { eventually, type RunningStack } from '@seed/platform-testing';
import { createToken, logIn } from './support/agent';
import { getMessageRaw, messageInState } from './support/sms-read';
import { sendBatch, ukMobile, type Account } from './support/http';
import { useProcesses, type Instance, type ProcessStack } from './support/processes';
import { smsc } from './support/smsc';
import { generate, receivedCodes, validate, wrongCode } from './support/verify';
import { deadLettersOf, setDefaultUrl } from './support/webhook-admin';
import { bodyOf, WebhookReceiver } from './support/webhook-receiver';

const SMPP_WINDOW = 100;
/** What one sender holds at most, and so the most a SIGKILL can make it send twice. */
const SEND_CLAIM_SIZE = 200;

/**
 * Two processes of every service, as a deployment scaled out would run them: the contract's flows
 * through either gateway, the rules that must hold across replicas, and one replica of each service
 * killed with SIGKILL in the middle of a batch.
 */
describe('two replicas of every service', () => {
  let receiver: WebhookReceiver;
  const ctx = useProcesses(
    async () => {
      receiver = await WebhookReceiver.start();
      return {
        WEBHOOK_ALLOWED_HOSTS: `127.0.0.1:${receiver.port}`,
        WEBHOOK_TIMEOUT_MS: '2000',
        WEBHOOK_RETRY_BASE_MS: '200',
        WEBHOOK_RETRY_MAX_DELAY_MS: '1000',
        WEBHOOK_BREAKER_COOLDOWN_MS: '500',
        // A killed replica's leases come back within seconds instead of a minute.
        WEBHOOK_LEASE_MS: '5000',
        SEND_LEASE_MS: '6000',
        SMPP_WINDOW: String(SMPP_WINDOW),
        SEND_CLAIM_SIZE: String(SEND_CLAIM_SIZE),
        SMSC_RECEIPT_DELAY_MS: '50',
      };
    },
    ['verification', 'agent-token', 'webhook-dispatcher'],
    { replicas: 2 },
  );
  let stack: ProcessStack;
  let viaSecond: RunningStack;
  let account: Account;

  beforeAll(async () => {
    stack = ctx.stack;
    viaSecond = { ...stack, ...stack.gateway(2) };
    account = await stack.createAccount();
    await setDefaultUrl(stack, account.accountId, receiver.url('/dlr'));
  });
  afterAll(async () => receiver?.close());

  /** The webhook states received per umid, in arrival order. */
  const statesOf = (umids: readonly string[]) => {
    const wanted = new Set(umids);
    const states = new Map<string, string[]>();
    for (const r of receiver.accepted()) {
      const { umid, status } = bodyOf(r).payload;
      if (wanted.has(umid)) states.set(umid, [...(states.get(umid) ?? []), status.state]);
    }
    return states;
  };
  const allDelivered = (umids: readonly string[]) => {
    const states = statesOf(umids);
    return umids.every((umid) => states.get(umid)?.includes('delivered')) ? states : undefined;
  };

  it('serves a batch through one gateway and its reads and webhooks through the other', async () => {
    const batch = await sendBatch(viaSecond, account, {
      template: { text: 'Two replicas' },
      messages: Array.from({ length: 20 }, (_, i) => ({ destination: `+${ukMobile(70_000 + i)}` })),
      includeMessagesInResponse: true,
    });
    const umids = (batch.messages ?? []).map((m) => m.umid);
    expect(umids).toHaveLength(20);
    await messageInState(stack, account, umids[0] as string, 'delivered', 30_000);
    expect((await getMessageRaw(viaSecond, account, umids[19] as string)).status).toBe(200);
    const states = await eventually(async () => allDelivered(umids), 30_000);
    for (const umid of umids) expect(states.get(umid)).toEqual(['sent', 'delivered']);
  });

  it('keeps the five-attempt rule of a verification whose attempts come through both gateways', async () => {
    const msisdn = ukMobile(71_001);
    const { uid } = await generate(stack, account, { destination: `+${msisdn}` });
    const [code] = (await receivedCodes(stack, msisdn, 1)) as [string];
    const views = await Promise.all([1, 2, 3, 4, 5].map((n) => validate(n % 2 ? stack : viaSecond, account, uid, wrongCode(code, n))));
    expect(views.map((v) => v.attempt).sort()).toEqual([1, 2, 3, 4, 5]);
    expect(await validate(viaSecond, account, uid, code)).toMatchObject({ status: 'FAILED', attempt: 5 });

    const other = ukMobile(71_002);
    const second = await generate(viaSecond, account, { destination: other });
    expect(await validate(stack, account, second.uid, (await receivedCodes(stack, other, 1))[0])).toMatchObject({ status: 'VERIFIED', attempt: 0 });
  });

  it('sends the guest link once when the agent logs in through both gateways at once', async () => {
    const phone = ukMobile(72_001);
    const token = await createToken(viaSecond, account.apiKey, { create_room: true, call_reference: 'replicas-001', phone_number: `+${phone}` });
    const sessions = await Promise.all([logIn(stack, token.auth_token), logIn(viaSecond, token.auth_token), logIn(stack, token.auth_token)]);
    for (const session of sessions) expect(session.room).toMatchObject({ call_reference: 'replicas-001', guest_link_sms: true });
    await smsc(stack.smscUrl).only(phone);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(await smsc(stack.smscUrl).messages(phone)).toHaveLength(1);
  });

  it('loses nothing when one replica of each service is killed mid-batch, and sends twice at most what the killed sender held', async () => {
    const MESSAGES = 2_000;
    const first = 80_000;
    const batch = await sendBatch(stack, account, {
      template: { text: 'Killed mid-batch' },
      messages: Array.from({ length: MESSAGES }, (_, i) => ({ destination: `+${ukMobile(first + i)}` })),
      includeMessagesInResponse: true,
    });
    const umids = (batch.messages ?? []).map((m) => m.umid);
    expect(umids).toHaveLength(MESSAGES);
    const carrier = smsc(stack.smscUrl);
    const before = (await carrier.stats()).submits;
    await eventually(async () => ((await carrier.stats()).submits - before >= 200 ? true : undefined), 30_000, 20);

    const victims: Instance[] = ['sms-batch', 'webhook-dispatcher', 'verification', 'agent-token', 'api-gateway#2'];
    expect(await Promise.all(victims.map((v) => stack.kill(v, 'SIGKILL')))).toEqual(victims.map(() => 'SIGKILL'));

    // The survivors take everything over: the batch, its receipts and webhooks, and new requests.
    const msisdn = ukMobile(73_001);
    const { uid } = await generate(stack, account, { destination: `+${msisdn}` });
    expect(await validate(stack, account, uid, (await receivedCodes(stack, msisdn, 1))[0])).toMatchObject({ status: 'VERIFIED' });
    const states = await eventually(async () => allDelivered(umids), 120_000, 250);

    // Per message: every change arrived, `sent` never after `delivered`.
    for (const umid of umids) {
      const seen = states.get(umid) as string[];
      expect(seen.indexOf('sent')).toBeGreaterThanOrEqual(0);
      expect(seen.indexOf('sent')).toBeLessThan(seen.indexOf('delivered'));
    }
    expect(await deadLettersOf(stack, account.accountId)).toEqual([]);

    // At the carrier: every message, and twice only what the killed sender held (on the wire or not yet recorded).
    const received = (await carrier.all()).filter((m) => m.text === 'Killed mid-batch');
    const perDestination = new Map<string, number>();
    for (const m of received) perDestination.set(m.destination, (perDestination.get(m.destination) ?? 0) + 1);
    expect(perDestination.size).toBe(MESSAGES);
    const twice = [...perDestination.values()].filter((n) => n > 1);
    expect(twice.every((n) => n === 2)).toBe(true);
    expect(twice.length).toBeLessThanOrEqual(SEND_CLAIM_SIZE);

    // The killed replicas come back, as a Deployment would restart them, and serve again.
    await Promise.all(victims.map((v) => stack.start(v)));
    const again = await sendBatch(viaSecond, account, { template: { text: 'After the restart' }, messages: [{ destination: `+${ukMobile(74_001)}` }], includeMessagesInResponse: true });
    await messageInState(viaSecond, account, (again.messages ?? [])[0]?.umid as string, 'delivered', 30_000);
  });
});
