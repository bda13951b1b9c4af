import { randomBytes } from 'node:crypto';
import type { RunningStack } from '@seed/platform-testing';
import { admin } from './support/admin';
import { expectApiError, postBatch, request, type Account } from './support/http';
import { postToken } from './support/agent';
import { getMessageRaw } from './support/sms-read';
import { useStack } from './support/stack';

const batch = { template: { text: 'Hi' }, messages: [{ destination: '+447911000001' }] };
const uniqueId = (prefix: string) => `${prefix}-${randomBytes(4).toString('hex')}`;

/** The admin API (the contract's "account dashboard") and what its keys can do on the messaging API. */
describe('admin API and API keys', () => {
  const ctx = useStack();
  let stack: RunningStack;

  beforeAll(() => {
    ({ stack } = ctx);
  });

  describe('operator token', () => {
    it.each([
      ['missing', null],
      ['wrong', 'not-the-operator-secret-at-all'],
      ['an API key', 'API_KEY'],
    ])('%s: 401, 1200, nothing created', async (_name, token) => {
      const accountId = uniqueId('nope');
      const used = token === 'API_KEY' ? (await stack.createAccount()).apiKey : token;
      await expectApiError(await admin(stack, used).createAccount(accountId), 401, 1200);
      await expectApiError(await admin(stack, used).getAccount(accountId), 401, 1200);
      await expectApiError(await admin(stack).getAccount(accountId), 404, 1300);
    });

    it('is not accepted as an API key on the messaging API', async () => {
      const { subAccountId } = await stack.createAccount();
      await expectApiError(await postBatch(stack, { subAccountId, apiKey: stack.adminToken }, batch), 401, 1200);
    });

    it('the admin API is not served on the messaging and agent listeners', async () => {
      for (const base of [stack.messagingUrl, stack.agentUrl]) {
        const res = await request(`${base}/admin/v1/accounts`, { token: stack.adminToken, body: { accountId: uniqueId('x') } });
        await expectApiError(res, 404, 1300);
      }
    });
  });

  describe('accounts', () => {
    it('creates an account with its _hq sub-account and a first key, shown once', async () => {
      const accountId = uniqueId('acme');
      const res = await admin(stack).createAccount(accountId);
      expect(res.status).toBe(201);
      const body = (await res.json()) as Record<string, unknown>;
      expect(Object.keys(body).sort()).toEqual(['accountId', 'apiKey', 'apiKeyId', 'subAccountIds']);
      expect(body).toMatchObject({ accountId, subAccountIds: [`${accountId}_hq`] });
      expect(typeof body['apiKey']).toBe('string');
      expect((body['apiKey'] as string).length).toBeGreaterThanOrEqual(32);
      expect(typeof body['apiKeyId']).toBe('string');
      expect(body['apiKeyId']).not.toBe(body['apiKey']);

      const read = await admin(stack).getAccount(accountId);
      expect(read.status).toBe(200);
      const account = (await read.json()) as Record<string, unknown>;
      expect(account).toEqual({ accountId, subAccountIds: [`${accountId}_hq`] });
      expect(JSON.stringify(account)).not.toContain(body['apiKey'] as string);

      const sent = await postBatch(stack, { subAccountId: `${accountId}_hq`, apiKey: body['apiKey'] as string }, batch);
      expect(sent.status).toBe(200);
    });

    it('refuses a duplicate account: 409', async () => {
      const accountId = uniqueId('dup');
      expect((await admin(stack).createAccount(accountId)).status).toBe(201);
      await expectApiError(await admin(stack).createAccount(accountId), 409);
    });

    it.each([
      ['missing', undefined],
      ['a number', 42],
      ['one character', 'a'],
      ['with a space', 'acme corp'],
      ['64 characters', 'a'.repeat(64)],
    ])('refuses an account id %s: 400', async (_name, accountId) => {
      await expectApiError(await admin(stack).createAccount(accountId), 400, 1000);
    });

    it('answers 404 for an unknown account', async () => {
      await expectApiError(await admin(stack).getAccount(uniqueId('ghost')), 404, 1300);
      await expectApiError(await admin(stack).createSubAccount(uniqueId('ghost'), uniqueId('sub')), 404);
      await expectApiError(await admin(stack).createApiKey(uniqueId('ghost')), 404);
    });
  });

  describe('sub-accounts', () => {
    it("creates a sub-account usable with the account's key, and only with it", async () => {
      const owner = await stack.createAccount();
      const stranger = await stack.createAccount();
      const subAccountId = uniqueId('branch');
      const res = await admin(stack).createSubAccount(owner.accountId, subAccountId);
      expect(res.status).toBe(201);
      expect(await res.json()).toEqual({ accountId: owner.accountId, subAccountId });

      const listed = (await (await admin(stack).getAccount(owner.accountId)).json()) as { subAccountIds: string[] };
      expect(listed.subAccountIds.sort()).toEqual([owner.subAccountId, subAccountId].sort());
      expect((await postBatch(stack, { subAccountId, apiKey: owner.apiKey }, batch)).status).toBe(200);
      await expectApiError(await postBatch(stack, { subAccountId, apiKey: stranger.apiKey }, batch), 403, 1001);
    });

    it('refuses a sub-account id already taken, in this or another account: 409', async () => {
      const owner = await stack.createAccount();
      const other = await stack.createAccount();
      const subAccountId = uniqueId('taken');
      expect((await admin(stack).createSubAccount(owner.accountId, subAccountId)).status).toBe(201);
      await expectApiError(await admin(stack).createSubAccount(owner.accountId, subAccountId), 409);
      await expectApiError(await admin(stack).createSubAccount(other.accountId, subAccountId), 409);
      await expectApiError(await admin(stack).createSubAccount(other.accountId, owner.subAccountId), 409);
    });

    it('keeps ids ending in _hq for the accounts that will own them', async () => {
      const owner = await stack.createAccount();
      const later = uniqueId('later');
      await expectApiError(await admin(stack).createSubAccount(owner.accountId, `${later}_hq`), 400, 1000);
      expect((await admin(stack).createAccount(later)).status).toBe(201);
    });

    it('refuses a malformed sub-account id: 400', async () => {
      const owner = await stack.createAccount();
      await expectApiError(await admin(stack).createSubAccount(owner.accountId, 'no/slashes'), 400, 1000);
      await expectApiError(await admin(stack).createSubAccount(owner.accountId, 7), 400, 1000);
    });
  });

  describe('API keys', () => {
    it('creates a second key; both keys work until one is revoked, which stops it at once', async () => {
      const account = await stack.createAccount();
      const created = await admin(stack).createApiKey(account.accountId);
      expect(created.status).toBe(201);
      const second = (await created.json()) as { apiKey: string; apiKeyId: string };
      expect(Object.keys(second).sort()).toEqual(['apiKey', 'apiKeyId']);
      expect(second.apiKey).not.toBe(account.apiKey);
      expect(second.apiKeyId).not.toBe(account.apiKeyId);

      const send = (apiKey: string) => postBatch(stack, { subAccountId: account.subAccountId, apiKey }, batch);
      expect((await send(account.apiKey)).status).toBe(200);
      expect((await send(second.apiKey)).status).toBe(200);

      const revoked = await admin(stack).revokeApiKey(account.accountId, second.apiKeyId);
      expect(revoked.status).toBe(204);
      expect(await revoked.text()).toBe('');
      await expectApiError(await send(second.apiKey), 401, 1200);
      expect((await send(account.apiKey)).status).toBe(200);

      // Revoking again, or through another account, finds no active key.
      await expectApiError(await admin(stack).revokeApiKey(account.accountId, second.apiKeyId), 404);
      const other = await stack.createAccount();
      await expectApiError(await admin(stack).revokeApiKey(other.accountId, account.apiKeyId), 404);
      expect((await send(account.apiKey)).status).toBe(200);
    });

    it('revoking the only key leaves the account without access until a new key is made', async () => {
      const account = await stack.createAccount();
      expect((await admin(stack).revokeApiKey(account.accountId, account.apiKeyId)).status).toBe(204);
      await expectApiError(await postBatch(stack, account, batch), 401, 1200);
      const fresh = (await (await admin(stack).createApiKey(account.accountId)).json()) as { apiKey: string };
      expect((await postBatch(stack, { subAccountId: account.subAccountId, apiKey: fresh.apiKey }, batch)).status).toBe(200);
    });

    it('needs the operator token for key management', async () => {
      const account = await stack.createAccount();
      await expectApiError(await admin(stack, account.apiKey).createApiKey(account.accountId), 401, 1200);
      await expectApiError(await admin(stack, null).revokeApiKey(account.accountId, account.apiKeyId), 401, 1200);
      expect((await postBatch(stack, account, batch)).status).toBe(200);
    });
  });

  it('answers 404, never 500, for path ids no account or key could have (a NUL byte among them)', async () => {
    const { accountId } = await stack.createAccount();
    const url = (path: string) => `${stack.adminUrl}/admin/v1/accounts${path}`;
    const token = stack.adminToken;
    const attempts = [
      request(url('/a%00b'), { token, method: 'GET' }),
      request(url('/a%00b/sub-accounts'), { token, body: { subAccountId: uniqueId('sub') } }),
      request(url('/a%00b/api-keys'), { token }),
      request(url('/a%00b/rate-limit'), { token, method: 'GET' }),
      request(url('/a%00b/rate-limit'), { token, method: 'PUT', body: { requestsPerSecond: 5 } }),
      request(url(`/${accountId}/api-keys/key_%00`), { token, method: 'DELETE' }),
      request(url(`/${accountId}/api-keys/${'x'.repeat(300)}`), { token, method: 'DELETE' }),
    ];
    for (const res of await Promise.all(attempts)) await expectApiError(res, 404, 1300);
    // Still behind the operator token: the id is not looked at before the caller is known.
    await expectApiError(await request(url('/a%00b'), { token: null, method: 'GET' }), 401, 1200);
  });

  describe('request rate limits', () => {
    /** Waits until just after a second starts, so that a burst falls within one second. */
    const startOfSecond = () => new Promise((resolve) => setTimeout(resolve, 1_000 - (Date.now() % 1_000) + 20));
    /** `n` message reads at once (404s: they count like any request); their responses. */
    const reads = (account: Pick<Account, 'apiKey' | 'subAccountId'>, n: number, subAccountId = account.subAccountId) =>
      Promise.all(Array.from({ length: n }, () => getMessageRaw(stack, account, 'no-such-message', subAccountId)));
    const statuses = (responses: Response[]) => responses.map((r) => r.status).sort();

    it('an account reads and sets its limit; bad input is refused and changes nothing', async () => {
      const { accountId } = await stack.createAccount();
      expect(await (await admin(stack).getRateLimit(accountId)).json()).toEqual({ accountId, requestsPerSecond: 1800, isDefault: true });
      for (const body of [{ requestsPerSecond: 0 }, { requestsPerSecond: '5' }, { requestsPerSecond: 2.5 }, { requestsPerSecond: 1_000_001 }, {}, []]) {
        await expectApiError(await admin(stack).setRateLimit(accountId, body), 400, 1000);
      }
      expect(await (await admin(stack).getRateLimit(accountId)).json()).toEqual({ accountId, requestsPerSecond: 1800, isDefault: true });
      const set = await admin(stack).setRateLimit(accountId, { requestsPerSecond: 7 });
      expect(set.status).toBe(200);
      expect(await set.json()).toEqual({ accountId, requestsPerSecond: 7, isDefault: false });
      expect(await (await admin(stack).getRateLimit(accountId)).json()).toEqual({ accountId, requestsPerSecond: 7, isDefault: false });
      await expectApiError(await admin(stack).setRateLimit(uniqueId('none'), { requestsPerSecond: 7 }), 404, 1300);
      await expectApiError(await admin(stack).getRateLimit(uniqueId('none')), 404, 1300);
      await expectApiError(await admin(stack, null).setRateLimit(accountId, { requestsPerSecond: 1 }), 401, 1200);
      await expectApiError(await admin(stack, (await stack.createAccount()).apiKey).getRateLimit(accountId), 401, 1200);
    });

    it('over the limit a sub-account gets 429, code 1600 and Retry-After, alone: its sibling and other accounts go on', async () => {
      const account = await stack.createAccount();
      const other = await stack.createAccount();
      const sibling = uniqueId('sib');
      expect((await admin(stack).createSubAccount(account.accountId, sibling)).status).toBe(201);
      expect((await admin(stack).setRateLimit(account.accountId, { requestsPerSecond: 5 })).status).toBe(200);

      await startOfSecond();
      const [flooded, ofSibling, ofOther] = await Promise.all([reads(account, 12), reads(account, 5, sibling), reads(other, 12)]);
      expect(statuses(flooded)).toEqual([...Array(5).fill(404), ...Array(7).fill(429)]);
      for (const res of flooded.filter((r) => r.status === 429)) {
        expect(res.headers.get('retry-after')).toBe('1');
        const body = await expectApiError(res, 429, 1600);
        expect(body.message).toMatch(/too many requests/);
      }
      expect(statuses(ofSibling)).toEqual(Array(5).fill(404));
      expect(statuses(ofOther)).toEqual(Array(12).fill(404));

      // The next second, the sub-account is served again.
      await startOfSecond();
      expect(statuses(await reads(account, 5))).toEqual(Array(5).fill(404));
    });

    it("batches over the limit are refused too, and the agent API counts against the account's default sub-account", async () => {
      const account = await stack.createAccount();
      expect((await admin(stack).setRateLimit(account.accountId, { requestsPerSecond: 3 })).status).toBe(200);
      await startOfSecond();
      const sent = await Promise.all(Array.from({ length: 4 }, () => postBatch(stack, account, batch)));
      expect(statuses(sent)).toEqual([200, 200, 200, 429]);
      await expectApiError((await postToken(stack, account.apiKey, {}))!, 429, 1600);

      // Back to the default: the same burst is served.
      expect(await (await admin(stack).setRateLimit(account.accountId, { requestsPerSecond: null })).json()).toMatchObject({ requestsPerSecond: 1800, isDefault: true });
      await startOfSecond();
      expect(statuses(await reads(account, 12))).toEqual(Array(12).fill(404));
    });
  });
});
