import type { VerificationEvent } from '@seed/verification-contracts';
import {
  decideVerification,
  foldVerification,
  VerificationError,
  viewOf,
  type Verification,
  type VerificationCommand,
} from './verification.decider';
import { formatCode, redactedText, renderText, settingsOf } from './verification-text';

const T0 = new Date('2026-11-22T10:00:00.000Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);
const UID = '0193a1b2-0000-7000-8000-000000000001';

const start = (options: Parameters<typeof settingsOf>[0] = {}): VerificationCommand => {
  const settings = settingsOf(options);
  return {
    type: 'Start',
    uid: UID,
    accountId: 'acme',
    subAccountId: 'acme_hq',
    msisdn: '447911123456',
    settings,
    codeHash: 'ab'.repeat(32),
    codeHashKeyId: 'k1',
    sealedText: 'sealed.v1.k1.x.y',
    redactedText: redactedText(settings),
    now: T0,
  };
};

/** Given these commands were decided (in order), the events so far. */
function given(...commands: VerificationCommand[]): VerificationEvent[] {
  const events: VerificationEvent[] = [];
  for (const command of commands) events.push(...decideVerification(command, foldVerification(events)));
  return events;
}
const when = (history: VerificationEvent[], command: VerificationCommand) => decideVerification(command, foldVerification(history));
const stateOf = (events: VerificationEvent[]) => foldVerification(events) as Verification;
const wrong = (seconds: number): VerificationCommand => ({ type: 'CheckCode', codeLength: 6, matches: false, now: at(seconds) });
const right = (seconds: number): VerificationCommand => ({ type: 'CheckCode', codeLength: 6, matches: true, now: at(seconds) });

describe('verification decider', () => {
  it('starts WAITING with attempt 0 and the default validity (300 s) and resend interval (30 s)', () => {
    const events = given(start());
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: 'VerificationStarted',
      schemaVersion: 1,
      data: { uid: UID, codeLength: 6, expiresAt: '2026-11-22T10:05:00.000Z', nextSmsAfter: '2026-11-22T10:00:30.000Z', brand: null, source: null },
    });
    expect(viewOf(stateOf(events), T0)).toEqual({
      uid: UID,
      resourceUri: `/verify/v2/acme_hq/${UID}`,
      msisdn: 447911123456,
      status: 'WAITING',
      attempt: 0,
      expiresAt: '2026-11-22T10:05:00.000Z',
      nextSmsAfter: '2026-11-22T10:00:30.000Z',
    });
  });

  it('verifies the right code, and counts wrong ones', () => {
    const history = given(start(), wrong(1), wrong(2));
    expect(stateOf(history).attempt).toBe(2);
    expect(when(history, right(3))).toEqual([{ type: 'VerificationVerified', schemaVersion: 1, data: { uid: UID, attempt: 2 } }]);
  });

  it('four wrong codes then the right one: VERIFIED with attempt 4', () => {
    const events = given(start(), wrong(1), wrong(2), wrong(3), wrong(4), right(5));
    expect(viewOf(stateOf(events), at(6))).toMatchObject({ status: 'VERIFIED', attempt: 4 });
  });

  it('the 5th wrong code fails it, and the right code then changes nothing', () => {
    const history = given(start(), wrong(1), wrong(2), wrong(3), wrong(4));
    const fifth = when(history, wrong(5));
    expect(fifth.map((e) => e.type)).toEqual(['VerificationCodeRejected', 'VerificationFailed']);
    expect(fifth[1]?.data).toEqual({ uid: UID, attempt: 5 });
    const failed = [...history, ...fifth];
    expect(when(failed, right(6))).toEqual([]);
    expect(when(failed, wrong(7))).toEqual([]);
    expect(viewOf(stateOf(failed), at(8))).toMatchObject({ status: 'FAILED', attempt: 5 });
  });

  it('a final verification never changes: VERIFIED stays VERIFIED after wrong codes and after expiry', () => {
    const verified = given(start(), right(1));
    expect(when(verified, wrong(2))).toEqual([]);
    expect(when(verified, right(400))).toEqual([]);
    expect(viewOf(stateOf(verified), at(400)).status).toBe('VERIFIED');
    expect(() => when(verified, { type: 'Resend', now: at(60) })).toThrow(VerificationError);
  });

  it('reads EXPIRED after expiresAt without any event; a code presented then records the expiry', () => {
    const history = given(start({ codeValidity: 30 }));
    expect(viewOf(stateOf(history), at(29.999)).status).toBe('WAITING');
    expect(viewOf(stateOf(history), at(30)).status).toBe('EXPIRED');
    const late = when(history, right(30));
    expect(late).toEqual([{ type: 'VerificationExpired', schemaVersion: 1, data: { uid: UID, reason: 'expired', attempt: 0 } }]);
    expect(when([...history, ...late], right(31))).toEqual([]);
  });

  it('refuses a code of the wrong length without counting it, whatever the state', () => {
    const history = given(start({ codeLength: 4 }));
    const bad: VerificationCommand = { type: 'CheckCode', codeLength: 6, matches: false, now: at(1) };
    expect(() => when(history, bad)).toThrow(expect.objectContaining({ kind: 'wrong-code-length' }));
  });

  it('resends the same verification only after nextSmsAfter, with a new nextSmsAfter and the same expiry', () => {
    const history = given(start({ resendingInterval: 10 }));
    expect(() => when(history, { type: 'Resend', now: at(4.2) })).toThrow(
      expect.objectContaining({ kind: 'resend-too-early', retryAfterSeconds: 6 }),
    );
    const resent = when(history, { type: 'Resend', now: at(12) });
    expect(resent).toEqual([
      { type: 'VerificationResent', schemaVersion: 1, data: { uid: UID, sendNumber: 2, nextSmsAfter: '2026-11-22T10:00:22.000Z' } },
    ]);
    const view = viewOf(stateOf([...history, ...resent]), at(13));
    expect(view).toMatchObject({ status: 'WAITING', nextSmsAfter: '2026-11-22T10:00:22.000Z', expiresAt: '2026-11-22T10:05:00.000Z' });
    expect(stateOf([...history, ...resent]).sends).toBe(2);
  });

  it('a reset expires a waiting verification once its resend interval has passed', () => {
    const history = given(start({ resendingInterval: 10 }));
    expect(() => when(history, { type: 'Reset', now: at(5) })).toThrow(expect.objectContaining({ kind: 'resend-too-early' }));
    const reset = when(history, { type: 'Reset', now: at(10) });
    expect(reset).toEqual([{ type: 'VerificationExpired', schemaVersion: 1, data: { uid: UID, reason: 'reset', attempt: 0 } }]);
    expect(viewOf(stateOf([...history, ...reset]), at(11)).status).toBe('EXPIRED');
    expect(when([...history, ...reset], { type: 'Reset', now: at(12) })).toEqual([]);
  });

  it('records each SMS outcome once, only for SMS it decided', () => {
    const history = given(start());
    const queued: VerificationCommand = { type: 'RecordSms', sendNumber: 1, outcome: { batchId: 'b1', umid: 'u1' } };
    const first = when(history, queued);
    expect(first).toEqual([{ type: 'VerificationSmsQueued', schemaVersion: 1, data: { uid: UID, sendNumber: 1, batchId: 'b1', umid: 'u1' } }]);
    expect(when([...history, ...first], queued)).toEqual([]);
    expect(when(history, { type: 'RecordSms', sendNumber: 2, outcome: { description: 'x' } })).toEqual([]);
  });

  it('knows no verification before it started', () => {
    expect(() => when([], right(1))).toThrow(expect.objectContaining({ kind: 'not-found' }));
    expect(() => when(given(start()), start())).toThrow(expect.objectContaining({ kind: 'already-started' }));
  });
});

describe('verification text', () => {
  it('applies the defaults and the branded default template', () => {
    expect(settingsOf({})).toEqual({ brand: null, source: null, template: 'Your verification code is {code}', codeLength: 6, codeValidity: 300, resendingInterval: 30 });
    const branded = settingsOf({ brand: 'ACME' });
    expect(renderText(branded, '123456')).toBe('ACME: Your verification code is 123456');
    expect(branded.source).toBe('ACME');
    expect(settingsOf({ brand: 'A brand far too long for a sender' }).source).toBeNull();
  });

  it('fills every {code} and {brand}, and masks the code in the redacted text', () => {
    const settings = settingsOf({ brand: 'Shop', template: '{code} is your {brand} code. Again: {code}', codeLength: 4 });
    expect(renderText(settings, '0042')).toBe('0042 is your Shop code. Again: 0042');
    expect(redactedText(settings)).toBe('**** is your Shop code. Again: ****');
  });

  it('keeps leading zeros and refuses out-of-range values', () => {
    expect(formatCode(42, 6)).toBe('000042');
    expect(formatCode(9_999_999_999, 10)).toBe('9999999999');
    expect(() => formatCode(10_000, 4)).toThrow(RangeError);
  });
});
