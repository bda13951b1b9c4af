import type { DataSource } from 'typeorm';
import { ApiErrorCode, type CommandReply } from '@seed/contracts';
import { CommandPipeline, EventStore, ProcessedMessages, type StoredEvent } from '@seed/platform-event-store';
import { ServiceSchema, SubscriptionRegistry } from '@seed/platform-nest';
import { dropSchema, openTestDataSource, testLogger, uniqueName } from '@seed/platform-testing';
import {
  verificationStreamId,
  type CheckVerificationData,
  type StartVerificationData,
  type VerificationStartedV1,
  type VerificationView,
} from '@seed/verification-contracts';
import { AbuseLimits } from '../limits/abuse-limits';
import { codeOf, commandOf, contextOf, HASH_KEYS, migrateVerificationSchema, presented, SEALING_KEYS } from '../verification.test-helpers';
import { CheckVerificationHandler } from './check-verification.handler';
import { CodeSecrets } from './code-secrets';
import { toPublicVerificationEvent } from './public-events';
import { StartVerificationHandler } from './start-verification.handler';
import { VerificationStore } from './verification-store';

const schema = uniqueName('it_verification');
const store = new EventStore(schema);
let ds: DataSource;
let starter: StartVerificationHandler;
let checker: CheckVerificationHandler;
let number = 0;
const nextMsisdn = () => `4479110${String(++number).padStart(5, '0')}`;

const start = (data: Partial<StartVerificationData> = {}, commandId?: string): Promise<CommandReply<VerificationView>> => {
  const command = commandOf('StartVerification' as const, { accountId: 'acme', subAccountId: 'acme_hq', msisdn: nextMsisdn(), ...data }, commandId);
  return starter.start(command, contextOf(command.commandId));
};
const check = (data: Partial<CheckVerificationData> & { uid: string }, commandId?: string): Promise<CommandReply<VerificationView>> => {
  const command = commandOf('CheckVerification' as const, { accountId: 'acme', subAccountId: 'acme_hq', ...data }, commandId);
  return checker.check(command, contextOf(command.commandId));
};
const ok = <T>(reply: CommandReply<T>): T => {
  if (!reply.ok) throw new Error(`refused: ${JSON.stringify(reply.failure)}`);
  return reply.result;
};
const eventsOf = async (uid: string): Promise<StoredEvent[]> => store.readStream(ds, verificationStreamId(uid));
const startedOf = async (uid: string) => (await eventsOf(uid))[0]?.data as VerificationStartedV1;
const typesOf = async (uid: string) => (await eventsOf(uid)).map((e) => e.type);

beforeAll(async () => {
  ds = await openTestDataSource(12);
  await migrateVerificationSchema(ds, schema);
  const logger = testLogger();
  const verifications = new VerificationStore(store, schema);
  const processed = new ProcessedMessages(schema);
  const subscriptions = new SubscriptionRegistry(ds, store, logger);
  const pipeline = new CommandPipeline(ds, store, processed, (types) => subscriptions.wakeFor(types));
  const secrets = new CodeSecrets(HASH_KEYS, SEALING_KEYS);
  const limits = new AbuseLimits(schema, { perDestinationPerHour: 5, perSubAccountPerMinute: 3 });
  starter = new StartVerificationHandler(ds, verifications, processed, pipeline, secrets, limits, new ServiceSchema(schema), logger, 30_000);
  checker = new CheckVerificationHandler(ds, verifications, pipeline, secrets, 30_000);
  // The per-sub-account limit of 3 a minute is tested with its own sub-account; the others use many.
});

afterAll(async () => {
  await dropSchema(ds, schema);
  await ds.destroy();
});

let subAccount = 0;
const freshSubAccount = () => `acme_s${++subAccount}`;

describe('verification handlers against PostgreSQL', () => {
  it('stores only the keyed hash and the sealed text; the right code verifies it', async () => {
    const view = ok(await start({ subAccountId: freshSubAccount() }));
    const started = await startedOf(view.uid);
    const code = codeOf(started);
    expect(code).toMatch(/^\d{6}$/);
    const stored = JSON.stringify(await ds.query(`SELECT data FROM "${schema}".events`));
    expect(stored).not.toContain(code);
    expect(started.redactedText).toBe('Your verification code is ******');
    expect(ok(await check({ uid: view.uid, subAccountId: started.subAccountId, code: presented(view.uid, code) }))).toMatchObject({ status: 'VERIFIED', attempt: 0 });
  });

  it('ten parallel wrong codes count five attempts once each, and then the right code fails', async () => {
    const subAccountId = freshSubAccount();
    const { uid } = ok(await start({ subAccountId }));
    const code = codeOf(await startedOf(uid));
    const wrongCode = code === '000000' ? '111111' : '000000';
    const replies = await Promise.all(Array.from({ length: 10 }, () => check({ uid, subAccountId, code: presented(uid, wrongCode) })));
    const attempts = replies.map((r) => ok(r).attempt).sort((a, b) => a - b);
    expect(attempts).toEqual([1, 2, 3, 4, 5, 5, 5, 5, 5, 5]);
    expect(await typesOf(uid)).toEqual(['VerificationStarted', ...Array(5).fill('VerificationCodeRejected'), 'VerificationFailed']);
    expect(ok(await check({ uid, subAccountId, code: presented(uid, code) }))).toMatchObject({ status: 'FAILED', attempt: 5 });
    expect(await typesOf(uid)).toHaveLength(7);
  });

  it('parallel wrong and right codes never verify after FAILED nor count after VERIFIED', async () => {
    for (let round = 0; round < 3; round++) {
      const subAccountId = freshSubAccount();
      const { uid } = ok(await start({ subAccountId }));
      const code = codeOf(await startedOf(uid));
      const wrongCode = code === '999999' ? '888888' : '999999';
      const codes = [...Array(8).fill(wrongCode), code, code].sort(() => Math.random() - 0.5);
      await Promise.all(codes.map((c) => check({ uid, subAccountId, code: presented(uid, c) })));
      const types = await typesOf(uid);
      const finals = types.filter((t) => t === 'VerificationVerified' || t === 'VerificationFailed');
      expect(finals).toHaveLength(1);
      expect(types.at(-1)).toBe(finals[0]); // nothing after the final event
      const rejected = types.filter((t) => t === 'VerificationCodeRejected').length;
      expect(rejected).toBeLessThanOrEqual(5);
      if (finals[0] === 'VerificationFailed') expect(rejected).toBe(5);
      const view = ok(await check({ uid, subAccountId }));
      expect(view).toMatchObject({ status: finals[0] === 'VerificationVerified' ? 'VERIFIED' : 'FAILED', attempt: rejected });
    }
  });

  it('a redelivered validation is answered as first decided and counted once', async () => {
    const subAccountId = freshSubAccount();
    const { uid } = ok(await start({ subAccountId }));
    const code = codeOf(await startedOf(uid));
    const wrongCode = code === '123456' ? '654321' : '123456';
    const first = ok(await check({ uid, subAccountId, code: presented(uid, wrongCode) }, 'a1b2c3d4-0000-4000-8000-000000000001'));
    const again = ok(await check({ uid, subAccountId, code: presented(uid, wrongCode) }, 'a1b2c3d4-0000-4000-8000-000000000001'));
    expect(again).toEqual(first);
    expect(first.attempt).toBe(1);
  });

  it('reads change nothing; a code of the wrong length is refused without counting; strangers get 404', async () => {
    const subAccountId = freshSubAccount();
    const { uid } = ok(await start({ subAccountId, codeLength: 4 }));
    const before = await eventsOf(uid);
    expect(ok(await check({ uid, subAccountId }))).toMatchObject({ status: 'WAITING', attempt: 0 });
    const wrongLength = await check({ uid, subAccountId, code: presented(uid, '123456') });
    expect(wrongLength).toMatchObject({ ok: false, failure: { status: 400, code: ApiErrorCode.InvalidParameter } });
    expect(await check({ uid, subAccountId: 'acme_other' })).toMatchObject({ ok: false, failure: { status: 404, code: ApiErrorCode.NotFound } });
    expect(await check({ uid, subAccountId, accountId: 'other' })).toMatchObject({ ok: false, failure: { status: 404, code: ApiErrorCode.NotFound } });
    expect(await check({ uid: '0193a1b2-0000-7000-8000-00000000ffff', subAccountId })).toMatchObject({ ok: false, failure: { status: 404 } });
    expect(await eventsOf(uid)).toEqual(before);
  });

  it('a second generation for the number before nextSmsAfter is refused (429, 1400) and parallel ones start one verification', async () => {
    const subAccountId = freshSubAccount();
    const msisdn = nextMsisdn();
    const replies = await Promise.all(Array.from({ length: 3 }, () => start({ subAccountId, msisdn, resendingInterval: 60 })));
    const started = replies.filter((r) => r.ok);
    expect(started).toHaveLength(1);
    for (const refused of replies.filter((r) => !r.ok)) {
      expect(refused).toMatchObject({ ok: false, failure: { status: 429, code: ApiErrorCode.ResendIntervalViolation } });
      const retryAfter = (refused as { failure: { retryAfterSeconds: number } }).failure.retryAfterSeconds;
      expect(retryAfter).toBeGreaterThanOrEqual(59);
      expect(retryAfter).toBeLessThanOrEqual(60);
    }
    const reset = await start({ subAccountId, msisdn, resetSession: true });
    expect(reset).toMatchObject({ ok: false, failure: { status: 429 } });
    const count = await ds.query(`SELECT count(*)::int AS n FROM "${schema}".events WHERE type = 'VerificationStarted' AND data->>'msisdn' = $1`, [msisdn]);
    expect(count[0].n).toBe(1);
  });

  it('a generation delivered twice at once (a rebalance mid-command) is answered twice as first decided', async () => {
    const data = { subAccountId: freshSubAccount(), msisdn: nextMsisdn() };
    const commandId = 'a1b2c3d4-0000-4000-8000-000000000002';
    const [first, again] = await Promise.all([start(data, commandId), start(data, commandId)]);
    expect(ok(again)).toEqual(ok(first));
    const count = await ds.query(`SELECT count(*)::int AS n FROM "${schema}".events WHERE data->>'msisdn' = $1`, [data.msisdn]);
    expect(count[0].n).toBe(1);
  });

  it('limits SMS per sub-account (429, 1400, Retry-After) without starting anything', async () => {
    const subAccountId = freshSubAccount();
    for (let i = 0; i < 3; i++) ok(await start({ subAccountId }));
    const refused = await start({ subAccountId });
    expect(refused).toMatchObject({ ok: false, failure: { status: 429, code: ApiErrorCode.ResendIntervalViolation } });
    expect((refused as { failure: { retryAfterSeconds: number } }).failure.retryAfterSeconds).toBeGreaterThan(50);
    const count = await ds.query(`SELECT count(*)::int AS n FROM "${schema}".events WHERE data->>'subAccountId' = $1`, [subAccountId]);
    expect(count[0].n).toBe(3);
  });

  it("limits SMS per destination across the account's sub-accounts, and another account's SMS do not count", async () => {
    const msisdn = nextMsisdn();
    for (let i = 0; i < 5; i++) ok(await start({ subAccountId: freshSubAccount(), msisdn }));
    expect(await start({ subAccountId: freshSubAccount(), msisdn })).toMatchObject({ ok: false, failure: { status: 429, code: 1400 } });
    // Another account neither learns of those SMS nor is kept from sending its own code.
    expect(ok(await start({ accountId: 'globex', subAccountId: 'globex_hq', msisdn }))).toMatchObject({ status: 'WAITING', attempt: 0 });
  });

  it('counts resends and resets against the limits: one over is refused and leaves the waiting verification as it was', async () => {
    const data = { subAccountId: freshSubAccount(), msisdn: nextMsisdn(), resendingInterval: 0 };
    const first = ok(await start(data));
    expect(ok(await start(data)).uid).toBe(first.uid); // a resend: same verification
    const reset = ok(await start({ ...data, resetSession: true }));
    expect(reset.uid).not.toBe(first.uid);
    expect(await typesOf(first.uid)).toEqual(['VerificationStarted', 'VerificationResent', 'VerificationExpired']); // ended by the reset
    // Three SMS in the sub-account's minute: a fourth, resend or reset, is refused and appends nothing.
    expect(await start(data)).toMatchObject({ ok: false, failure: { status: 429, code: 1400 } });
    expect(await start({ ...data, resetSession: true })).toMatchObject({ ok: false, failure: { status: 429, code: 1400 } });
    expect(await typesOf(reset.uid)).toEqual(['VerificationStarted']);
    const sends = await ds.query(`SELECT count(*)::int AS n FROM "${schema}".sms_sends WHERE msisdn = $1`, [data.msisdn]);
    expect(sends[0].n).toBe(3);
  });

  it('does not start a generation request older than the gateway waits (503, nothing written)', async () => {
    const msisdn = nextMsisdn();
    const command = commandOf('StartVerification' as const, { accountId: 'acme', subAccountId: freshSubAccount(), msisdn });
    const reply = await starter.start({ ...command, issuedAt: new Date(Date.now() - 31_000).toISOString() }, contextOf(command.commandId));
    expect(reply).toMatchObject({ ok: false, failure: { status: 503, code: ApiErrorCode.InternalError } });
    const count = await ds.query(`SELECT count(*)::int AS n FROM "${schema}".events WHERE data->>'msisdn' = $1`, [msisdn]);
    expect(count[0].n).toBe(0);
  });

  it('does not decide a validation older than the gateway waits (503, no attempt counted); a read is answered', async () => {
    const subAccountId = freshSubAccount();
    const { uid } = ok(await start({ subAccountId }));
    const code = codeOf(await startedOf(uid));
    const stale = (data: Omit<CheckVerificationData, 'accountId' | 'subAccountId'>) => {
      const command = commandOf('CheckVerification' as const, { accountId: 'acme', subAccountId, ...data });
      return checker.check({ ...command, issuedAt: new Date(Date.now() - 31_000).toISOString() }, contextOf(command.commandId));
    };
    expect(await stale({ uid, code: presented(uid, code === '123456' ? '654321' : '123456') })).toMatchObject({ ok: false, failure: { status: 503, code: ApiErrorCode.InternalError } });
    expect(await stale({ uid, code: presented(uid, code) })).toMatchObject({ ok: false, failure: { status: 503 } });
    expect(ok(await stale({ uid }))).toMatchObject({ status: 'WAITING', attempt: 0 });
    expect(await typesOf(uid)).toEqual(['VerificationStarted']);
  });

  it('publishes VerificationStarted without its hash and sealed text', async () => {
    const { uid } = ok(await start({ subAccountId: freshSubAccount(), brand: 'ACME' }));
    const [event] = await eventsOf(uid);
    const published = toPublicVerificationEvent(event as StoredEvent);
    expect(Object.keys(published.data as object).sort()).toEqual(
      ['accountId', 'brand', 'codeLength', 'codeValidity', 'expiresAt', 'msisdn', 'nextSmsAfter', 'redactedText', 'resendingInterval', 'source', 'subAccountId', 'uid'].sort(),
    );
    expect(published).not.toHaveProperty('transactionId');
    expect((published.data as VerificationStartedV1).redactedText).toBe('ACME: Your verification code is ******');
  });
});
