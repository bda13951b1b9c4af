import type { NewEvent } from '@seed/contracts';
import {
  VerificationLimits,
  type VerificationEvent,
  type VerificationStartedV1,
  type VerificationStatus,
  type VerificationView,
} from '@seed/verification-contracts';
import type { VerificationSettings } from './verification-text';

/*
 * One verification (Verify v2) as a decider: decide(command, state) -> events, evolve(state, event).
 * Time comes in with every command; the code, its hash and the sealed text come in with Start, so
 * the decider never sees a code and tests control everything.
 */

export interface Verification {
  status: VerificationStatus;
  uid: string;
  accountId: string;
  subAccountId: string;
  msisdn: string;
  codeLength: number;
  resendingInterval: number;
  expiresAt: string;
  nextSmsAfter: string;
  /** Wrong codes presented so far. */
  attempt: number;
  /** SMS decided so far (1 for the first, +1 per resend). */
  sends: number;
  /** sendNumbers whose outcome at sms-batch is recorded. */
  smsRecorded: number[];
  started: VerificationStartedV1;
}

export type VerificationState = { status: 'NEW' } | Verification;

export const initialVerificationState = (): VerificationState => ({ status: 'NEW' });

export type VerificationCommand =
  | {
      type: 'Start';
      uid: string;
      accountId: string;
      subAccountId: string;
      msisdn: string;
      settings: VerificationSettings;
      codeHash: string;
      codeHashKeyId: string;
      sealedText: string;
      redactedText: string;
      now: Date;
    }
  /** A generation request for the number of this WAITING, unexpired verification. */
  | { type: 'Resend'; now: Date }
  /** A generation request with resetSession: this one ends, a new one starts. */
  | { type: 'Reset'; now: Date }
  /** A presented code: its length, and whether its keyed hash equals the stored one. */
  | { type: 'CheckCode'; codeLength: number; matches: boolean; now: Date }
  | { type: 'RecordSms'; sendNumber: number; outcome: { batchId: string; umid: string } | { description: string } };

export type VerificationErrorKind = 'not-found' | 'resend-too-early' | 'wrong-code-length' | 'already-started';

export class VerificationError extends Error {
  override readonly name = 'VerificationError';
  constructor(
    readonly kind: VerificationErrorKind,
    message: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

const FINAL: readonly VerificationStatus[] = ['VERIFIED', 'FAILED', 'EXPIRED'];

export function isFinal(state: VerificationState): boolean {
  return state.status !== 'NEW' && FINAL.includes(state.status);
}

/** WAITING and its code still valid at `now`. */
export function isActive(state: VerificationState, now: Date): boolean {
  return state.status === 'WAITING' && now.getTime() < Date.parse(state.expiresAt);
}

const plus = (now: Date, seconds: number): string => new Date(now.getTime() + seconds * 1000).toISOString();

export function decideVerification(command: VerificationCommand, state: VerificationState): VerificationEvent[] {
  if (command.type === 'Start') return decideStart(command, state);
  if (state.status === 'NEW') throw new VerificationError('not-found', 'no such verification in this sub-account');
  switch (command.type) {
    case 'Resend':
      return decideResend(command.now, state);
    case 'Reset':
      return decideReset(command.now, state);
    case 'CheckCode':
      return decideCheck(command, state);
    case 'RecordSms':
      return decideRecordSms(command, state);
  }
}

function decideStart(command: Extract<VerificationCommand, { type: 'Start' }>, state: VerificationState): VerificationEvent[] {
  if (state.status !== 'NEW') throw new VerificationError('already-started', `verification ${command.uid} exists already`);
  const { settings, now } = command;
  return [
    event('VerificationStarted', {
      uid: command.uid,
      accountId: command.accountId,
      subAccountId: command.subAccountId,
      msisdn: command.msisdn,
      brand: settings.brand,
      source: settings.source,
      codeLength: settings.codeLength,
      codeValidity: settings.codeValidity,
      resendingInterval: settings.resendingInterval,
      expiresAt: plus(now, settings.codeValidity),
      nextSmsAfter: plus(now, settings.resendingInterval),
      redactedText: command.redactedText,
      codeHash: command.codeHash,
      codeHashKeyId: command.codeHashKeyId,
      sealedText: command.sealedText,
    }),
  ];
}

/** The resend interval holds for every generation request for the number, resets included. */
function checkResendInterval(now: Date, state: Verification): void {
  const waitMs = Date.parse(state.nextSmsAfter) - now.getTime();
  if (waitMs > 0) {
    throw new VerificationError(
      'resend-too-early',
      `a code was sent to this number less than ${state.resendingInterval} s ago; try again after ${state.nextSmsAfter}`,
      Math.ceil(waitMs / 1000),
    );
  }
}

function decideResend(now: Date, state: Verification): VerificationEvent[] {
  if (!isActive(state, now)) throw new VerificationError('not-found', 'the verification is no longer waiting for a code');
  checkResendInterval(now, state);
  return [event('VerificationResent', { uid: state.uid, sendNumber: state.sends + 1, nextSmsAfter: plus(now, state.resendingInterval) })];
}

function decideReset(now: Date, state: Verification): VerificationEvent[] {
  if (!isActive(state, now)) return [];
  checkResendInterval(now, state);
  return [event('VerificationExpired', { uid: state.uid, reason: 'reset', attempt: state.attempt })];
}

function decideCheck(command: Extract<VerificationCommand, { type: 'CheckCode' }>, state: Verification): VerificationEvent[] {
  if (command.codeLength !== state.codeLength) {
    throw new VerificationError('wrong-code-length', `code must be ${state.codeLength} digits`);
  }
  if (isFinal(state)) return []; // a final verification never changes; it is answered as it is
  if (!isActive(state, command.now)) return [event('VerificationExpired', { uid: state.uid, reason: 'expired', attempt: state.attempt })];
  if (command.matches) return [event('VerificationVerified', { uid: state.uid, attempt: state.attempt })];
  const attempt = state.attempt + 1;
  const rejected = event('VerificationCodeRejected', { uid: state.uid, attempt });
  return attempt >= VerificationLimits.maxWrongAttempts ? [rejected, event('VerificationFailed', { uid: state.uid, attempt })] : [rejected];
}

function decideRecordSms(command: Extract<VerificationCommand, { type: 'RecordSms' }>, state: Verification): VerificationEvent[] {
  if (command.sendNumber < 1 || command.sendNumber > state.sends || state.smsRecorded.includes(command.sendNumber)) return [];
  const { outcome, sendNumber } = command;
  return 'umid' in outcome
    ? [event('VerificationSmsQueued', { uid: state.uid, sendNumber, batchId: outcome.batchId, umid: outcome.umid })]
    : [event('VerificationSmsRejected', { uid: state.uid, sendNumber, description: outcome.description })];
}

export function evolveVerification(state: VerificationState, e: VerificationEvent): VerificationState {
  if (e.type === 'VerificationStarted') {
    const d = e.data;
    return {
      status: 'WAITING',
      uid: d.uid,
      accountId: d.accountId,
      subAccountId: d.subAccountId,
      msisdn: d.msisdn,
      codeLength: d.codeLength,
      resendingInterval: d.resendingInterval,
      expiresAt: d.expiresAt,
      nextSmsAfter: d.nextSmsAfter,
      attempt: 0,
      sends: 1,
      smsRecorded: [],
      started: d,
    };
  }
  if (state.status === 'NEW') return state; // nothing precedes VerificationStarted in a stream
  switch (e.type) {
    case 'VerificationResent':
      return { ...state, sends: e.data.sendNumber, nextSmsAfter: e.data.nextSmsAfter };
    case 'VerificationCodeRejected':
      return { ...state, attempt: e.data.attempt };
    case 'VerificationVerified':
      return { ...state, status: 'VERIFIED' };
    case 'VerificationFailed':
      return { ...state, status: 'FAILED', attempt: e.data.attempt };
    case 'VerificationExpired':
      return { ...state, status: 'EXPIRED' };
    case 'VerificationSmsQueued':
    case 'VerificationSmsRejected':
      return { ...state, smsRecorded: [...state.smsRecorded, e.data.sendNumber] };
  }
}

export function foldVerification(events: readonly VerificationEvent[]): VerificationState {
  return events.reduce(evolveVerification, initialVerificationState());
}

/** The contract's object. A WAITING verification whose code has expired reads EXPIRED (nothing is written). */
export function viewOf(state: Verification, now: Date): VerificationView {
  return {
    uid: state.uid,
    resourceUri: `/verify/v2/${state.subAccountId}/${state.uid}`,
    msisdn: Number(state.msisdn),
    status: state.status === 'WAITING' && !isActive(state, now) ? 'EXPIRED' : state.status,
    attempt: state.attempt,
    expiresAt: state.expiresAt,
    nextSmsAfter: state.nextSmsAfter,
  };
}

function event<T extends VerificationEvent['type']>(type: T, data: Extract<VerificationEvent, { type: T }>['data']): VerificationEvent {
  return { type, schemaVersion: 1, data } as NewEvent as VerificationEvent;
}
