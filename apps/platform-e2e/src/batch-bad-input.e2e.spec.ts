import type { RunningStack } from '@seed/platform-testing';
import type { SmsBatchDb } from './support/database';
import { batchUrl, expectApiError, inMinutes, postBatch, request, sendBatch, type Account } from './support/http';
import { useStack } from './support/stack';

const ok = { destination: '+447911000001', text: 'Hello' };
const days = (n: number) => inMinutes(n * 24 * 60);

/**
 * Whole-request errors of POST /sms/v1/{subAccountId}/many (product-decisions.md): each gets its
 * status and the contract's error body, and nothing of it is written.
 */
describe('batch SMS: requests refused as a whole', () => {
  const ctx = useStack({ BODY_LIMIT: '1mb' });
  let stack: RunningStack;
  let db: SmsBatchDb;
  let account: Account;
  let other: Account;

  beforeAll(async () => {
    ({ stack, db } = ctx);
    [account, other] = await Promise.all([stack.createAccount(), stack.createAccount()]);
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
    it.each<[string, number, Record<string, unknown>]>([
      ['includeMessagesInResponse "yes"', 1000, { includeMessagesInResponse: 'yes', messages: [ok] }],
      ['clientBatchId a number', 1000, { clientBatchId: 42, messages: [ok] }],
      ['destination a number', 1002, { messages: [{ ...ok, destination: 447911123456 }] }],
      ['text a number', 1004, { messages: [{ ...ok, text: 5 }] }],
      ['template text a number', 1004, { template: { text: 5 }, messages: [ok] }],
      ['source a number', 1005, { messages: [{ ...ok, source: 12345 }] }],
      ['template a string', 1007, { template: 'Hello', messages: [ok] }],
      ['template an array', 1007, { template: [{ text: 'Hello' }], messages: [ok] }],
      ['encoding UTF-8', 1003, { messages: [{ ...ok, encoding: 'UTF-8' }] }],
      ['template encoding gsm7 (lower case)', 1003, { template: { encoding: 'gsm7' }, messages: [ok] }],
      ['expiry not a date', 1006, { messages: [{ ...ok, expiry: 'tomorrow' }] }],
      ['scheduled not a date', 1011, { messages: [{ ...ok, scheduled: 'soon' }] }],
      ['scheduled 8 days ahead', 1011, { messages: [{ ...ok, scheduled: days(8) }] }],
      ['template scheduled 8 days ahead', 1011, { template: { text: 'x', scheduled: days(8) }, messages: [ok] }],
      ['country XX', 1009, { messages: [{ ...ok, country: 'XX' }] }],
      ['country gb (lower case)', 1009, { messages: [{ ...ok, country: 'gb' }] }],
      ['country a number', 1009, { messages: [{ ...ok, country: 44 }] }],
      ['clientMessageId over 50 characters', 1000, { messages: [{ ...ok, clientMessageId: 'm'.repeat(51) }] }],
      ['dlrCallbackUrl not a URL', 1000, { messages: [{ ...ok, dlrCallbackUrl: 'not a url' }] }],
      ['dlrCallbackUrl ftp', 1000, { template: { dlrCallbackUrl: 'ftp://hooks.example.com/x' }, messages: [ok] }],
    ])('%s: 400, %i', async (_name, code, body) => {
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

    // Found by fuzzing the document: the instant of 9999-12-31T23:59:59-14:00 is in the year 10000,
    // which sms-batch's read models could not store (they stopped for every message after it).
    it.each([
      ['expiry', '9999-12-31T23:59:59-14:00', 1006],
      ['expiry', '0000-06-06T00:00:00Z', 1006],
      ['scheduled', '0001-01-01T00:30:00+01:00', 1011],
    ])('%s %s (outside the years 0001-9999 in UTC): 400, %i', async (field, value, code) => {
      await refused(() => postBatch(stack, account, { template: { [field]: value }, messages: [ok] }), 400, code);
    });

    // Found by fuzzing the document: RFC 3339 date-times of the years 0001-0099 were refused (400).
    it('an expiry of the year 18 is a date like any other: the message is rejected as expired', async () => {
      const res = await sendBatch(stack, account, { messages: [{ ...ok, expiry: '0018-06-06T11:15:53.91Z' }], includeMessagesInResponse: true });
      expect(res.messages?.[0]?.status).toEqual({ code: 'REJECTED', description: 'Expiry time already reached' });
    });

    // JSON can escape half a surrogate pair; such a string is not text (and Postgres refuses it in jsonb).
    it.each([
      ['text', { messages: [{ ...ok, text: 'smile \ud83d' }] }],
      ['destination', { messages: [{ ...ok, destination: '+44791100000\udc00' }] }],
      ['clientBatchId', { clientBatchId: '\ud83d', messages: [ok] }],
    ])('an unpaired surrogate in %s: 400, 1000', async (_name, body) => {
      await refused(() => postBatch(stack, account, body), 400, 1000);
    });

    it('null is absent for the optional fields', async () => {
      const res = await sendBatch(stack, account, {
        clientBatchId: null,
        includeMessagesInResponse: null,
        template: null,
        messages: [{ ...ok, clientMessageId: null, source: null, encoding: null, scheduled: null, expiry: null, country: null }],
      });
      expect(res).toMatchObject({ acceptedCount: 1, rejectedCount: 0 });
      expect(res).not.toHaveProperty('clientBatchId');
      expect(res).not.toHaveProperty('messages');
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
    ])('API key %s: 401, 1200', async (_name, token) => {
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
      { messages: [{ ...ok, constructor: 'x' }] },
      { template: { text: 'x', constructor: 7 }, messages: [ok] },
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
