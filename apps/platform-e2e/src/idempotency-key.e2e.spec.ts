import { randomUUID } from 'node:crypto';
import { eventually } from '@seed/platform-testing';
import { expectApiError, request, ukMobile, type Account, type BatchMessage, type BatchResponse } from './support/http';
import { useProcesses } from './support/processes';
import { smsc } from './support/smsc';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * `Idempotency-Key` on the current API generation's sends, and the deadline that makes a 503 mean
 * "not done": the gateway waits 3 s, sms-batch decides nothing older than that (less its 2 s skew
 * margin), so a request sms-batch was too late for can be retried with its key and is sent once.
 */
describe('Idempotency-Key and the 503 deadline', () => {
  const ctx = useProcesses({ COMMAND_TIMEOUT_MS: '3000', SMS_BATCH_MAX_COMMAND_AGE_MS: '3000' });
  let account: Account;

  beforeAll(async () => {
    account = await ctx.stack.createAccount();
  });

  const url = (path = '') => `${ctx.stack.messagingUrl}/api/v1/subaccounts/${account.subAccountId}/messages${path}`;
  const post = (path: string, body: unknown, key?: string) => request(url(path), { token: account.apiKey, body, headers: key ? { 'idempotency-key': key } : {} });
  /** Everything at the carrier for `destination` once nothing more arrives for a while. */
  const settledAtCarrier = async (destination: string): Promise<number> => {
    await smsc(ctx.stack.smscUrl).only(destination);
    await sleep(1500);
    return (await smsc(ctx.stack.smscUrl).messages(destination)).length;
  };

  it('answers the same key and body with the first answer (Idempotent-Replayed), sending once; another body is 422', async () => {
    const key = randomUUID();
    const destination = ukMobile(93_001);
    const body = { destination: `+${destination}`, text: 'Once only', clientMessageId: 'idem-1' };
    const first = await post('', body, key);
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const firstBody = (await first.json()) as BatchMessage;
    // The same body with its keys in another order is the same request.
    const again = await post('', { clientMessageId: 'idem-1', text: 'Once only', destination: `+${destination}` }, key);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.json()).toEqual(firstBody);
    await expectApiError(await post('', { ...body, text: 'Another text' }, key), 422, 1000);
    await expectApiError(await post('/batch', { messages: [body] }, key), 422, 1000);
    expect(await settledAtCarrier(destination)).toBe(1);
  });

  it('makes one batch of a batch sent twice with one key', async () => {
    const key = randomUUID();
    const destinations = [ukMobile(93_011), ukMobile(93_012)];
    const body = { template: { text: 'Batch once' }, messages: destinations.map((d) => ({ destination: `+${d}` })), includeMessagesInResponse: true };
    const [a, b] = await Promise.all([post('/batch', body, key), post('/batch', body, key)]);
    expect([a.status, b.status]).toEqual([200, 200]);
    const [x, y] = (await Promise.all([a.json(), b.json()])) as BatchResponse[];
    expect(y).toEqual(x);
    expect([a.headers.get('idempotent-replayed'), b.headers.get('idempotent-replayed')].sort()).toEqual(['true', null].sort());
    for (const destination of destinations) expect(await settledAtCarrier(destination)).toBe(1);
  });

  it('rejects a malformed key with 400, code 1000', async () => {
    await expectApiError(await post('', { destination: `+${ukMobile(93_021)}`, text: 'x' }, 'x'.repeat(256)), 400, 1000);
  });

  it('sends nothing for a request answered 503 that sms-batch reached too late, and its retry with the same key once', async () => {
    const key = randomUUID();
    const destination = ukMobile(93_031);
    const body = { destination: `+${destination}`, text: 'After a 503' };
    expect(await ctx.stack.kill('sms-batch', 'SIGTERM')).toBeTruthy();
    const refused = await post('', body, key);
    await expectApiError(refused, 503, 2000);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    await ctx.stack.start('sms-batch');
    // The command waiting in the topic is now past its deadline: refused, nothing decided. The
    // retry is keyed to the same partition, after it.
    const retried = await eventually(async () => {
      const res = await post('', body, key);
      return res.status === 200 ? res : undefined;
    }, 30_000);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    expect(((await retried.json()) as BatchMessage).destination).toBe(destination);
    expect(await settledAtCarrier(destination)).toBe(1);
  });
});
