import { eventually, type RunningStack } from '@seed/platform-testing';
import type { SmsBatchDb } from './support/database';
import { expectApiError, request, sendBatch, withoutIds, type Account, type BatchMessage, type BatchResponse } from './support/http';
import { smsc } from './support/smsc';
import { useStack } from './support/stack';

/**
 * The provider's current API generation beside the legacy one (product-decisions, "Current API
 * generation"): the same client behaviour through either, one decision and one read model behind both.
 */
describe('current API generation', () => {
  const ctx = useStack();
  let stack: RunningStack;
  let db: SmsBatchDb;
  let account: Account;

  beforeAll(async () => {
    ({ stack, db } = ctx);
    account = await stack.createAccount();
  });

  const v1 = (path = '') => `${stack.messagingUrl}/api/v1/subaccounts/${account.subAccountId}/messages${path}`;
  const post = (url: string, body: unknown) => request(url, { token: account.apiKey, body });
  const get = (url: string) => request(url, { token: account.apiKey, method: 'GET' });
  const ok = async <T>(res: Response): Promise<T> => {
    expect(res.status).toBe(200);
    return (await res.json()) as T;
  };

  it('a client sending the same batch through either generation gets the same answers, and the carrier gets both', async () => {
    const body = (n: number) => ({
      template: { text: 'Both generations', source: 'ACME' },
      includeMessagesInResponse: true,
      messages: [{ destination: `+4479110008${n}1`, clientMessageId: 'a' }, { destination: 'no number' }, { destination: `+4479110008${n}2`, text: 'Ünïcode' }],
    });
    const legacy = await sendBatch(stack, account, body(1));
    const current = await ok<BatchResponse>(await post(v1('/batch'), body(1)));
    expect(withoutIds(current)).toEqual(withoutIds(legacy));
    const destinations = ['447911000811', '447911000812'];
    for (const destination of destinations) {
      await eventually(async () => ((await smsc(stack.smscUrl).messages(destination)).filter((m) => m.complete).length === 2 ? true : undefined));
    }
    // Each message reads the same through both generations' read paths.
    const umid = current.messages?.[0]?.umid as string;
    const viaCurrent = await eventually(async () => {
      const view = await ok<{ status: { state: string } }>(await get(v1(`/${umid}`)));
      return view.status.state === 'delivered' ? view : undefined;
    });
    expect(await ok(await get(`${stack.messagingUrl}/sms/v1/${account.subAccountId}/messages/${umid}`))).toEqual(viaCurrent);
  });

  it('sends one SMS: 200 with the message, which reaches the carrier', async () => {
    const message = await ok<BatchMessage>(await post(v1(), { destination: '+44 7911 000821', text: 'Just one', clientMessageId: 'one-1' }));
    expect(message).toMatchObject({ clientMessageId: 'one-1', destination: '447911000821', encoding: 'GSM7', status: { code: 'QUEUED' } });
    expect(Object.keys(message).sort()).toEqual(['clientMessageId', 'destination', 'encoding', 'status', 'umid']);
    expect((await smsc(stack.smscUrl).only('447911000821')).text).toBe('Just one');
  });

  it.each([
    ['an invalid number', { destination: 'not a number', text: 'Hi' }, 1002],
    ['no text', { destination: '+447911000831' }, 1004],
    ['a text over 10 parts', { destination: '+447911000832', text: 'x'.repeat(1600) }, 1004],
    ['a source over its limit', { destination: '+447911000833', text: 'Hi', source: 'A-sender-far-too-long' }, 1005],
    ['an expiry already reached', { destination: '+447911000834', text: 'Hi', expiry: '2020-01-01T00:00:00Z' }, 1006],
  ])('refuses a single SMS with %s: 400 with its code, nothing written', async (_case, body, code) => {
    const before = await db.eventCount();
    await expectApiError(await post(v1(), body), 400, code);
    expect(await db.eventCount()).toBe(before);
  });

  it('is served on the messaging listener only', async () => {
    const onAgent = `${stack.agentUrl}/api/v1/subaccounts/${account.subAccountId}/messages`;
    await expectApiError(await request(onAgent, { token: account.apiKey, body: { destination: '+447911000841', text: 'Hi' } }), 404);
  });
});
