import type { NewEvent } from '@seed/contracts';

/** Public topic of the verification service's events (no codes, no hashes, no sealed texts). */
export const VERIFICATION_EVENT_TOPIC = 'verification.events.v1';

export const verificationStreamId = (uid: string): string => `verification-${uid}`;

/**
 * A verification started and its first SMS is due. `codeHash`, `codeHashKeyId` and `sealedText`
 * stay in the service's own log: the public topic carries this event without them.
 */
export interface VerificationStartedV1 {
  uid: string;
  accountId: string;
  subAccountId: string;
  msisdn: string;
  brand: string | null;
  /** Sender id of the SMS (the brand when it is a valid alphanumeric sender id), else null. */
  source: string | null;
  codeLength: number;
  codeValidity: number;
  resendingInterval: number;
  expiresAt: string;
  nextSmsAfter: string;
  /** The SMS text with the code masked (`*` per digit): what sms-batch shows of it. */
  redactedText: string;
  /** HMAC-SHA256 of (uid, code) under the key `codeHashKeyId` of VERIFY_CODE_HASH_KEYS. */
  codeHash: string;
  codeHashKeyId: string;
  /** The real SMS text sealed with MESSAGE_SEALING_KEYS, so that a resend sends the same code. */
  sealedText: string;
}

/** The same code is sent again (SMS number `sendNumber`, 2 and up). */
export interface VerificationResentV1 {
  uid: string;
  sendNumber: number;
  nextSmsAfter: string;
}

/** A wrong code was presented; `attempt` is the count of wrong codes so far. */
export interface VerificationCodeRejectedV1 {
  uid: string;
  attempt: number;
}

export interface VerificationVerifiedV1 {
  uid: string;
  attempt: number;
}

/** The last allowed wrong code: final. */
export interface VerificationFailedV1 {
  uid: string;
  attempt: number;
}

/**
 * Final. `expired`: a code was presented after `expiresAt`; `reset`: a generation with
 * `resetSession` replaced it. A verification whose expiry passes with nobody asking has no such
 * event: reads report it EXPIRED from `expiresAt`.
 */
export interface VerificationExpiredV1 {
  uid: string;
  reason: 'expired' | 'reset';
  attempt: number;
}

/** SMS number `sendNumber` was accepted by sms-batch as message `umid`. */
export interface VerificationSmsQueuedV1 {
  uid: string;
  sendNumber: number;
  batchId: string;
  umid: string;
}

/** SMS number `sendNumber` was refused by sms-batch (its rejection description). */
export interface VerificationSmsRejectedV1 {
  uid: string;
  sendNumber: number;
  description: string;
}

export type VerificationEvent =
  | NewEvent<VerificationStartedV1, 'VerificationStarted'>
  | NewEvent<VerificationResentV1, 'VerificationResent'>
  | NewEvent<VerificationCodeRejectedV1, 'VerificationCodeRejected'>
  | NewEvent<VerificationVerifiedV1, 'VerificationVerified'>
  | NewEvent<VerificationFailedV1, 'VerificationFailed'>
  | NewEvent<VerificationExpiredV1, 'VerificationExpired'>
  | NewEvent<VerificationSmsQueuedV1, 'VerificationSmsQueued'>
  | NewEvent<VerificationSmsRejectedV1, 'VerificationSmsRejected'>;

export type VerificationEventType = VerificationEvent['type'];

/** Fields of VerificationStarted that never leave the service. */
export const PRIVATE_STARTED_FIELDS = ['codeHash', 'codeHashKeyId', 'sealedText'] as const;
