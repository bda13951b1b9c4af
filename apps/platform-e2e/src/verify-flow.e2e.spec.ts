import type { RunningStack } from '@seed/platform-testing';
import { expectApiError, ISO_UTC, ukMobile, UUID, type Account } from './support/http';
import { consumeUntil, type ConsumedRecord } from './support/kafka';
import { smsc } from './support/smsc';
import { useStack } from './support/stack';
import { generate, getVerification, postVerification, receivedCodes, validate, wrongCode, type VerificationView } from './support/verify';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Verify v2 end to end, through the stack `npm start` runs: the code is read where a phone would
 * read it, at the carrier (the SMSC simulator's inspection API).
 */
describe('Verify v2: generate, send, validate', () => {
  const ctx = useStack();
  let stack: RunningStack;
  let account: Account;
  // Started first and checked last, so the waits for expiry and for the resend interval overlap the other tests.
  let expiring: { view: VerificationView; msisdn: string; startedAt: number };
  let resending: { view: VerificationView; msisdn: string; startedAt: number };

  beforeAll(async () => {
    stack = ctx.stack;
    account = await stack.createAccount();
    expiring = { msisdn: ukMobile(41_001), startedAt: Date.now(), view: await generate(stack, account, { destination: `+${ukMobile(41_001)}`, codeValidity: 30 }) };
    resending = { msisdn: ukMobile(41_002), startedAt: Date.now(), view: await generate(stack, account, { destination: ukMobile(41_002), resendingInterval: 10 }) };
  });

  it('generates: 200, WAITING, attempt 0, the contract fields, and the carrier gets the code', async () => {
    const msisdn = ukMobile(41_010);
    const before = Date.now();
    const res = await postVerification(stack, account, { destination: `+44 7911 ${msisdn.slice(6, 9)} ${msisdn.slice(9)}` });
    expect(res.status).toBe(200);
    const view = (await res.json()) as VerificationView;
    expect(Object.keys(view).sort()).toEqual(['attempt', 'expiresAt', 'msisdn', 'nextSmsAfter', 'resourceUri', 'status', 'uid'].sort());
    expect(view).toMatchObject({ status: 'WAITING', attempt: 0, msisdn: Number(msisdn), resourceUri: `/verify/v2/${account.subAccountId}/${view.uid}` });
    expect(view.uid).toMatch(UUID);
    expect(view.expiresAt).toMatch(ISO_UTC);
    expect(view.nextSmsAfter).toMatch(ISO_UTC);
    expect(Date.parse(view.expiresAt) - before).toBeGreaterThanOrEqual(299_000);
    expect(Date.parse(view.expiresAt) - before).toBeLessThan(310_000);
    expect(Date.parse(view.nextSmsAfter) - before).toBeGreaterThanOrEqual(29_000);
    await receivedCodes(stack, msisdn, 1);
    const [sms] = await smsc(stack.smscUrl).messages(msisdn);
    expect(sms?.text).toMatch(/^Your verification code is \d{6}$/);
    expect(await validate(stack, account, view.uid)).toEqual(view); // a read changes nothing
  });

  it('four wrong codes, then the right one: VERIFIED with attempt 4; then it never changes', async () => {
    const msisdn = ukMobile(41_020);
    const { uid } = await generate(stack, account, { destination: msisdn, brand: 'ACME', codeLength: 8 });
    const [code] = await receivedCodes(stack, msisdn, 1, 8);
    const [sms] = await smsc(stack.smscUrl).messages(msisdn);
    expect(sms).toMatchObject({ text: `ACME: Your verification code is ${code}`, source: 'ACME' });
    for (let i = 1; i <= 4; i++) expect(await validate(stack, account, uid, wrongCode(code as string, i))).toMatchObject({ status: 'WAITING', attempt: i });
    const verified = await validate(stack, account, uid, code);
    expect(verified).toMatchObject({ uid, status: 'VERIFIED', attempt: 4 });
    expect(await validate(stack, account, uid, wrongCode(code as string))).toEqual(verified);
    expect(await validate(stack, account, uid)).toEqual(verified);
  });

  it('five wrong codes: FAILED, and the right one no longer works', async () => {
    const msisdn = ukMobile(41_030);
    const { uid } = await generate(stack, account, { destination: msisdn, codeLength: 4 });
    const [code] = await receivedCodes(stack, msisdn, 1, 4);
    for (let i = 1; i <= 4; i++) expect(await validate(stack, account, uid, wrongCode(code as string, i))).toMatchObject({ status: 'WAITING', attempt: i });
    expect(await validate(stack, account, uid, wrongCode(code as string, 5))).toMatchObject({ status: 'FAILED', attempt: 5 });
    expect(await validate(stack, account, uid, code)).toMatchObject({ status: 'FAILED', attempt: 5 });
    // A new generation for the number starts a new verification: the failed one is final.
    const next = await generate(stack, account, { destination: msisdn, codeLength: 4 });
    expect(next.uid).not.toBe(uid);
  });

  it('a generation for the number before nextSmsAfter: 429, code 1400, Retry-After, nothing sent', async () => {
    const res = await postVerification(stack, account, { destination: resending.msisdn, resendingInterval: 10 });
    const body = await expectApiError(res, 429, 1400);
    expect(body.message).toMatch(/try again after/);
    const retryAfter = Number(res.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(10);
    await receivedCodes(stack, resending.msisdn, 1);
    expect(await smsc(stack.smscUrl).messages(resending.msisdn)).toHaveLength(1);
  });

  it('another sub-account or account cannot see a verification (404, 1300); a non-id is 404 too', async () => {
    const stranger = await stack.createAccount();
    await expectApiError(await getVerification(stack, stranger, resending.view.uid), 404, 1300);
    await expectApiError(await getVerification(stack, { ...stranger, subAccountId: account.subAccountId }, resending.view.uid), 403, 1001);
    await expectApiError(await getVerification(stack, account, '0193a1b2-0000-7000-8000-00000000ffff', '123456'), 404, 1300);
    await expectApiError(await getVerification(stack, account, 'not-a-uid'), 404, 1300);
    expect(await validate(stack, account, resending.view.uid)).toMatchObject({ status: 'WAITING', attempt: 0 });
  });

  it('a generation after nextSmsAfter resends: same uid, same code, new nextSmsAfter', async () => {
    await sleep(Math.max(0, resending.startedAt + 10_500 - Date.now()));
    const again = await generate(stack, account, { destination: resending.msisdn });
    expect(again).toMatchObject({ uid: resending.view.uid, status: 'WAITING', attempt: 0, expiresAt: resending.view.expiresAt });
    expect(Date.parse(again.nextSmsAfter)).toBeGreaterThan(Date.parse(resending.view.nextSmsAfter));
    const [first, second] = await receivedCodes(stack, resending.msisdn, 2);
    expect(second).toBe(first);
    expect(await validate(stack, account, again.uid, second)).toMatchObject({ uid: again.uid, status: 'VERIFIED' });
  });

  it('resetSession after nextSmsAfter expires the old verification and starts a new one with a new code', async () => {
    const msisdn = ukMobile(41_040);
    const old = await generate(stack, account, { destination: msisdn, resendingInterval: 10 });
    await sleep(10_500);
    const fresh = await generate(stack, account, { destination: msisdn, resetSession: true });
    expect(fresh.uid).not.toBe(old.uid);
    expect(await validate(stack, account, old.uid)).toMatchObject({ status: 'EXPIRED' });
    const [oldCode, newCode] = await receivedCodes(stack, msisdn, 2);
    expect(await validate(stack, account, old.uid, oldCode)).toMatchObject({ status: 'EXPIRED' });
    expect(await validate(stack, account, fresh.uid, newCode)).toMatchObject({ status: 'VERIFIED' });
  });

  it('after codeValidity the verification reads EXPIRED, and the right code no longer verifies it', async () => {
    const [code] = await receivedCodes(stack, expiring.msisdn, 1);
    expect(await validate(stack, account, expiring.view.uid)).toMatchObject({ status: 'WAITING' });
    await sleep(Math.max(0, Date.parse(expiring.view.expiresAt) + 500 - Date.now()));
    expect(await validate(stack, account, expiring.view.uid)).toMatchObject({ status: 'EXPIRED', attempt: 0 });
    expect(await validate(stack, account, expiring.view.uid, code)).toMatchObject({ status: 'EXPIRED', attempt: 0 });
    // The number can get a new verification at once.
    const next = await generate(stack, account, { destination: expiring.msisdn });
    expect(next.uid).not.toBe(expiring.view.uid);
  }, 60_000);

  it('no topic carries the code in clear: not the validations, not the SMS request to sms-batch, not the replies', async () => {
    const msisdn = ukMobile(41_050);
    const { uid } = await generate(stack, account, { destination: msisdn, codeLength: 10 });
    const [code] = await receivedCodes(stack, msisdn, 1, 10);
    await validate(stack, account, uid, wrongCode(code as string));
    expect(await validate(stack, account, uid, code)).toMatchObject({ status: 'VERIFIED', attempt: 1 });
    const clientBatchId = `verify-${uid}-1`;
    const read = (topic: string, done: (records: readonly ConsumedRecord[]) => boolean) => consumeUntil(`${stack.topicPrefix}${topic}`, done);
    const checks = await read('verification.commands.v1', (rs) => rs.filter((r) => JSON.stringify(r.value).includes(uid) && r.value['type'] === 'CheckVerification').length >= 2);
    const smsRequests = await read('sms-batch.service-commands.v1', (rs) => rs.some((r) => JSON.stringify(r.value).includes(clientBatchId)));
    const smsReplies = await read('verification.replies.v1', (rs) => rs.some((r) => JSON.stringify(r.value).includes(clientBatchId)));
    const gatewayReplies = await read('api-gateway.replies.v1', (rs) => rs.some((r) => JSON.stringify(r.value).includes(uid) && JSON.stringify(r.value).includes('"VERIFIED"')));
    // The follower's SubmitBatches: one batch per SMS of its pass.
    type SmsBatch = { clientBatchId?: string; messages: { text: string; sealedText: string }[] };
    const requests = smsRequests.flatMap((r) => ((r.value['data'] as { batches?: { batch: SmsBatch }[] }).batches ?? []).map((b) => b.batch));
    const request = requests.find((batch) => batch.clientBatchId === clientBatchId);
    expect(request?.messages[0]).toMatchObject({ text: 'Your verification code is **********', sealedText: expect.stringMatching(/^sealed\.v1\./) });
    for (const records of [checks, smsRequests, smsReplies, gatewayReplies]) {
      expect(records.length).toBeGreaterThan(0);
      expect(JSON.stringify(records)).not.toContain(code);
    }
  });

  it('publishes the verification events on verification.events.v1, with the umid of each SMS and never a code', async () => {
    const uid = expiring.view.uid;
    const [code] = await receivedCodes(stack, expiring.msisdn, 1);
    const records = await consumeUntil(`${stack.topicPrefix}verification.events.v1`, (rs) => rs.some((r) => r.key === `verification-${uid}` && r.value['type'] === 'VerificationExpired'));
    const mine = records.filter((r) => r.key === `verification-${uid}`).map((r) => r.value);
    expect(mine.map((e) => e['type'])).toEqual(expect.arrayContaining(['VerificationStarted', 'VerificationSmsQueued', 'VerificationExpired']));
    expect(mine.find((e) => e['type'] === 'VerificationSmsQueued')?.['data']).toMatchObject({ uid, sendNumber: 1, umid: expect.stringMatching(UUID) });
    const everything = JSON.stringify(records.map((r) => r.value));
    expect(everything).not.toContain(`is ${code}`);
    expect(everything).not.toContain('codeHash');
    expect(everything).not.toContain('sealed.v1');
    expect(mine[0]?.['data']).toMatchObject({ redactedText: 'Your verification code is ******' });
  });
});
