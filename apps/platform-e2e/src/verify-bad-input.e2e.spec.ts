import type { RunningStack } from '@seed/platform-testing';
import { addSubAccount } from './support/admin';
import { expectApiError, request, ukMobile, type Account } from './support/http';
import { smsc } from './support/smsc';
import { useStack } from './support/stack';
import { generate, getVerification, postVerification, receivedCodes, validate, verifyUrl } from './support/verify';

/**
 * Bad input to Verify v2: each answered with the product-decisions status and code and the
 * contract's error body, and nothing started, sent or counted.
 */
describe('Verify v2: bad input', () => {
  // A low per-sub-account limit, so the abuse limit can be seen; the other tests stay under it.
  const ctx = useStack({ VERIFY_MAX_PER_SUBACCOUNT_PER_MINUTE: '4' });
  let stack: RunningStack;
  let account: Account;

  beforeAll(async () => {
    stack = ctx.stack;
    account = await stack.createAccount();
  });

  const msisdn = ukMobile(42_001);
  it.each([
    ['missing destination', {}, 1002],
    ['a destination that is not a string', { destination: 447911042001 }, 1002],
    ['a national number without country', { destination: '07911 042001' }, 1002],
    ['a number that is not valid', { destination: '+44 12' }, 1002],
    ['an unknown country', { destination: '07911 042001', country: 'XX' }, 1009],
    ['codeLength 3', { destination: msisdn, codeLength: 3 }, 1010],
    ['codeLength 11', { destination: msisdn, codeLength: 11 }, 1010],
    ['codeLength not an integer', { destination: msisdn, codeLength: '6' }, 1000],
    ['codeValidity 29', { destination: msisdn, codeValidity: 29 }, 1010],
    ['codeValidity 7201', { destination: msisdn, codeValidity: 7201 }, 1010],
    ['resendingInterval 9', { destination: msisdn, resendingInterval: 9 }, 1010],
    ['resendingInterval 7201', { destination: msisdn, resendingInterval: 7201 }, 1010],
    ['a template without {code}', { destination: msisdn, template: 'Your code is ready' }, 1007],
    ['a brand of 31 characters', { destination: msisdn, brand: 'B'.repeat(31) }, 1010],
    ['resetSession not a boolean', { destination: msisdn, resetSession: 'true' }, 1000],
  ])('generation with %s (%j): 400, code %i', async (_what, body, code) => {
    await expectApiError(await postVerification(stack, account, body), 400, code as number);
  });

  it('answers malformed JSON, a body that is not JSON, a missing key and another account with the contract error body', async () => {
    const url = verifyUrl(stack, account.subAccountId);
    await expectApiError(await request(url, { token: account.apiKey, body: '{"destination":' }), 400, 1000);
    await expectApiError(await request(url, { token: account.apiKey, body: 'destination=1', contentType: 'text/plain' }), 415, 1000);
    await expectApiError(await request(url, { body: { destination: msisdn } }), 401, 1200);
    const stranger = await stack.createAccount();
    await expectApiError(await postVerification(stack, { ...stranger, subAccountId: account.subAccountId }, { destination: msisdn }), 403, 1001);
  });

  it('none of the refused generations sent anything; a valid one afterwards is the first', async () => {
    const view = await generate(stack, account, { destination: msisdn });
    expect(view.attempt).toBe(0);
    await receivedCodes(stack, msisdn, 1);
    expect(await smsc(stack.smscUrl).messages(msisdn)).toHaveLength(1);
  });

  it('a code with non-digits, of a length outside 4-10, or of another length than the verification: 400, nothing counted', async () => {
    const number = ukMobile(42_002);
    const { uid } = await generate(stack, account, { destination: number });
    const [code] = await receivedCodes(stack, number, 1);
    for (const bad of ['12a456', '123', '12345678901', '', ' 123456', '1234567']) {
      await expectApiError(await getVerification(stack, account, uid, bad), 400, 1000);
    }
    const twice = await request(`${verifyUrl(stack, account.subAccountId, uid)}?code=${code}&code=${code}`, { token: account.apiKey, method: 'GET' });
    await expectApiError(twice, 400, 1000);
    expect(await validate(stack, account, uid)).toMatchObject({ status: 'WAITING', attempt: 0 });
    expect(await validate(stack, account, uid, code)).toMatchObject({ status: 'VERIFIED', attempt: 0 });
  });

  it('an unknown uid, or a uid of another sub-account or account: 404, 1300', async () => {
    const number = ukMobile(42_003);
    const { uid } = await generate(stack, account, { destination: number });
    const branch = { ...account, subAccountId: `${account.accountId}_hq2` };
    await addSubAccount(stack, account.accountId, branch.subAccountId);
    await expectApiError(await getVerification(stack, branch, uid), 404, 1300);
    await expectApiError(await getVerification(stack, branch, uid, '123456'), 404, 1300);
    const stranger = await stack.createAccount();
    await expectApiError(await getVerification(stack, stranger, uid), 404, 1300);
    await expectApiError(await getVerification(stack, account, '01937e00-0000-7000-8000-000000000000'), 404, 1300);
    expect(await validate(stack, account, uid)).toMatchObject({ status: 'WAITING', attempt: 0 });
  });

  it('more generations than the abuse limit allows: 429, code 1400, Retry-After, nothing sent', async () => {
    const busy = await stack.createAccount();
    for (let i = 0; i < 4; i++) await generate(stack, busy, { destination: ukMobile(42_100 + i) });
    const res = await postVerification(stack, busy, { destination: ukMobile(42_104) });
    const body = await expectApiError(res, 429, 1400);
    expect(body.message).toMatch(/at most 4 a minute/);
    const retryAfter = Number(res.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(50);
    expect(retryAfter).toBeLessThanOrEqual(60);
    await receivedCodes(stack, ukMobile(42_103), 1);
    expect(await smsc(stack.smscUrl).messages(ukMobile(42_104))).toHaveLength(0);
  });
});
