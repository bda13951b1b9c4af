import { startStack, type RunningStack } from '@seed/platform-testing';
import { SmsBatchDb } from './support/database';
import { batchUrl, expectApiError, inMinutes, postBatch, request, sendBatch, type Account } from './support/http';

const ok = { destination: '+447911000001', text: 'Hello' };
const days = (n: number) => inMinutes(n * 24 * 60);

/**
 * Whole-request errors of POST /sms/v1/{subAccountId}/many (product-decisions.md): each gets its
 * status and the contract's error body, and nothing of it is written.
 */
describe('batch SMS: requests refused as a whole', () => {
  let stack: RunningStack;
  let db: SmsBatchDb;
  let account: Account;
  let other: Account;

  beforeAll(async () => {
    stack = await startStack({ BODY_LIMIT: '1mb' });
    db = new SmsBatchDb(stack);
    [account, other] = await Promise.all([stack.createAccount(), stack.createAccount()]);
  });

  afterAll(async () => {
    await db?.close();
    await stack?.stop();
  });

  /** Runs `send`, checks the error it gets, and that the sms-batch log did not grow. */
  async function refused(send: () => Promise<Response>, status: number, code?: number): Promise<string> {
    const before = await db.eventCount();
    const body = await expectApiError(await send(), status, code);
    expect(await db.eventCount()).toBe(before);
    return body.message;
  }

  it('measures "nothing written" by a log that does grow for a good request', async () => {
    const before = await db.eventCount();
    await sendBatch(stack, account, { messages: [ok] });
    expect(await db.eventCount()).toBe(before + 2);
  });

  describe('body format', () => {
    it('malformed JSON: 400, 1000', async () => {
      await refused(() => postBatch(stack, account, '{"messages": [{"destination": "+447911000001",'), 400, 1000);
    });

    it.each([
      ['text/plain', 'text/plain'],
      ['form encoded', 'application/x-www-form-urlencoded'],
      ['no content type', null],
    ])('content type %s: 415', async (_name, contentType) => {
      await refused(() => postBatch(stack, account, JSON.stringify({ messages: [ok] }), { contentType }), 415);
    });

    it('a body over the size limit (2 MB, limit 1 MB): 413', async () => {
      const text = 'x'.repeat(1000);
      const body = JSON.stringify({ messages: Array.from({ length: 2000 }, () => ({ ...ok, text })) });
      expect(body.length).toBeGreaterThan(2_000_000);
      await refused(() => postBatch(stack, account, body), 413);
    });

    it('a JSON body that is not an object: 400, 1000', async () => {
      for (const body of ['[]', '"messages"', '42', 'null']) await refused(() => postBatch(stack, account, body), 400, 1000);
    });
  });

  describe('batch shape', () => {
    it('10,001 messages: 400, 1100', async () => {
      await refused(() => postBatch(stack, account, { messages: Array.from({ length: 10_001 }, () => ({})) }), 400, 1100);
    });

    it.each([
      ['missing', { template: { text: 'Hi' } }],
      ['empty', { messages: [] }],
      ['a string', { messages: 'all of them' }],
      ['an object', { messages: { 0: ok } }],
      ['null', { messages: null }],
    ])('messages %s: 400, 1000', async (_name, body) => {
      await refused(() => postBatch(stack, account, body), 400, 1000);
    });

    it.each([
      ['a string', 'x'],
      ['null', null],
      ['an array', [ok]],
      ['a number', 7],
    ])('a message that is %s: 400, 1000', async (_name, item) => {
      await refused(() => postBatch(stack, account, { messages: [ok, item] }), 400, 1000);
    });

    it('clientBatchId over 50 characters: 400, 1000', async () => {
      await refused(() => postBatch(stack, account, { clientBatchId: 'b'.repeat(51), messages: [ok] }), 400, 1000);
    });
  });

  describe('wrong types and values', () => {
    it.each<[string, Record<string, unknown>, number]>([
      ['includeMessagesInResponse "yes"', { includeMessagesInResponse: 'yes', messages: [ok] }, 1000],
      ['clientBatchId a number', { clientBatchId: 42, messages: [ok] }, 1000],
      ['destination a number', { messages: [{ ...ok, destination: 447911123456 }] }, 1002],
      ['text a number', { messages: [{ ...ok, text: 5 }] }, 1004],
      ['template text a number', { template: { text: 5 }, messages: [ok] }, 1004],
      ['source a number', { messages: [{ ...ok, source: 12345 }] }, 1005],
      ['template a string', { template: 'Hello', messages: [ok] }, 1007],
      ['template an array', { template: [{ text: 'Hello' }], messages: [ok] }, 1007],
      ['encoding UTF-8', { messages: [{ ...ok, encoding: 'UTF-8' }] }, 1003],
      ['template encoding gsm7 (lower case)', { template: { encoding: 'gsm7' }, messages: [ok] }, 1003],
      ['expiry not a date', { messages: [{ ...ok, expiry: 'tomorrow' }] }, 1006],
      ['scheduled not a date', { messages: [{ ...ok, scheduled: 'soon' }] }, 1011],
      ['scheduled 8 days ahead', { messages: [{ ...ok, scheduled: days(8) }] }, 1011],
      ['template scheduled 8 days ahead', { template: { text: 'x', scheduled: days(8) }, messages: [ok] }, 1011],
      ['country XX', { messages: [{ ...ok, country: 'XX' }] }, 1009],
      ['country gb (lower case)', { messages: [{ ...ok, country: 'gb' }] }, 1009],
      ['country a number', { messages: [{ ...ok, country: 44 }] }, 1009],
      ['clientMessageId over 50 characters', { messages: [{ ...ok, clientMessageId: 'm'.repeat(51) }] }, 1000],
      ['dlrCallbackUrl not a URL', { messages: [{ ...ok, dlrCallbackUrl: 'not a url' }] }, 1000],
      ['dlrCallbackUrl ftp', { template: { dlrCallbackUrl: 'ftp://hooks.example.com/x' }, messages: [ok] }, 1000],
    ])('%s: 400, %i', async (_name, body, code) => {
      await refused(() => postBatch(stack, account, body), 400, code);
    });

    // Date-times that pass an ISO 8601 format check but that Date cannot read.
    it.each([
      ['expiry', '2026-W48-1', 1006],
      ['expiry', '20261130', 1006],
      ['scheduled', '2026-11-30T10:00:00,5Z', 1011],
      ['scheduled', '2026-334', 1011],
    ])('%s %s (ISO 8601, but not an instant Date reads): 400, %i', async (field, value, code) => {
      await refused(() => postBatch(stack, account, { messages: [{ ...ok, [field]: value }] }), 400, code);
    });

    it('a schedule at most 7 days ahead or in the past is fine', async () => {
      const res = await sendBatch(stack, account, { messages: [{ ...ok, scheduled: days(6.9) }, { ...ok, scheduled: inMinutes(-10) }] });
      expect(res).toMatchObject({ acceptedCount: 2, rejectedCount: 0 });
    });
  });

  describe('authentication and sub-accounts', () => {
    it('an unknown sub-account: 403, 1001', async () => {
      await refused(() => postBatch(stack, { subAccountId: 'nobody_hq', apiKey: account.apiKey }, { messages: [ok] }), 403, 1001);
    });

    it("another account's sub-account: 403, 1001", async () => {
      await refused(() => postBatch(stack, { subAccountId: other.subAccountId, apiKey: account.apiKey }, { messages: [ok] }), 403, 1001);
    });

    it.each([
      ['missing', null],
      ['unknown', 'sk_this-key-was-never-issued'],
      ['the admin token', 'ADMIN'],
    ])('a %s API key: 401, 1200', async (_name, token) => {
      const apiKey = token === 'ADMIN' ? stack.adminToken : token;
      await refused(() => request(batchUrl(stack, account.subAccountId), { token: apiKey, body: { messages: [ok] } }), 401, 1200);
    });

    it('a non-bearer Authorization header: 401, 1200', async () => {
      const headers = { authorization: `Basic ${Buffer.from(`${account.accountId}:${account.apiKey}`).toString('base64')}` };
      await refused(() => request(batchUrl(stack, account.subAccountId), { token: null, headers, body: { messages: [ok] } }), 401, 1200);
    });
  });

  describe('paths', () => {
    it('the batch path on the admin listener: 404 in the error shape', async () => {
      const url = `${stack.adminUrl}/sms/v1/${account.subAccountId}/many`;
      await refused(() => request(url, { token: account.apiKey, body: { messages: [ok] } }), 404, 1300);
    });

    it('the batch path on the agent listener: 404 in the error shape', async () => {
      const url = `${stack.agentUrl}/sms/v1/${account.subAccountId}/many`;
      await refused(() => request(url, { token: account.apiKey, body: { messages: [ok] } }), 404, 1300);
    });

    it('an unknown path or method on the messaging listener: 4xx in the error shape', async () => {
      await refused(() => request(`${stack.messagingUrl}/sms/v1/${account.subAccountId}/none`, { token: account.apiKey, body: { messages: [ok] } }), 404);
      const res = await request(batchUrl(stack, account.subAccountId), { token: account.apiKey, method: 'GET' });
      expect([404, 405]).toContain(res.status);
      await expectApiError(res, res.status);
    });
  });

  it('never answers 500 to odd input', async () => {
    const bodies: unknown[] = [
      { messages: [{}] },
      { messages: [{ destination: null, text: null, source: null, encoding: null, country: null }] },
      { messages: [ok], template: null },
      { messages: [ok], template: { text: null, expiry: null } },
      { messages: [{ ...ok, text: '\ud83d' }] },
      { messages: [{ ...ok, text: '🙂'.repeat(400) }] },
      { messages: [{ ...ok, destination: '+'.repeat(5000) }] },
      { messages: [{ ...ok, destination: '٤٤٧٩١١٠٠٠٠٠١' }] },
      { messages: [{ ...ok, source: '' }] },
      { messages: [{ ...ok, expiry: '9999-12-31T23:59:59Z', scheduled: '0001-01-01T00:00:00Z' }] },
      { messages: [{ ...ok, constructor: { prototype: { polluted: true } } }] },
      JSON.parse('{"messages":[{"destination":"+447911000001","__proto__":{"text":5}}],"__proto__":{"messages":5}}'),
      { messages: [[[[[[[[[[]]]]]]]]]] },
      { messages: [ok], includeMessagesInResponse: null, clientBatchId: null },
      { messages: [ok], clientBatchId: '' },
    ];
    const failures: string[] = [];
    for (const body of bodies) {
      const res = await postBatch(stack, account, body);
      const text = await res.text();
      if (res.status >= 500) failures.push(`${res.status} for ${JSON.stringify(body).slice(0, 120)}: ${text.slice(0, 200)}`);
    }
    expect(failures).toEqual([]);
  });
});
