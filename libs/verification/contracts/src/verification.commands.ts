import type { CommandMessage } from '@seed/contracts';

/** Commands to the verification service. Generation is keyed by `verificationKey`, checks by uid. */
export const VERIFICATION_COMMAND_TOPIC = 'verification.commands.v1';

/**
 * Partitions of the command topic. Each partition's commands are handled one at a time, so this
 * bounds how many verification commands are decided at once (one per key still in order).
 */
export const VERIFICATION_COMMAND_PARTITIONS = 12;

/**
 * Key of a generation command: one sub-account's generations for one number go to one partition
 * and are decided one after the other.
 */
export const generationKey = (subAccountId: string, msisdn: string): string => `${subAccountId}:${msisdn}`;

/** The optional settings of a generation request, as the client gave them (already type-checked). */
export interface VerificationOptions {
  brand?: string;
  template?: string;
  codeLength?: number;
  /** Seconds. */
  codeValidity?: number;
  /** Seconds. */
  resendingInterval?: number;
  resetSession?: boolean;
}

export interface StartVerificationData extends VerificationOptions {
  accountId: string;
  subAccountId: string;
  /** E.164 digits without `+`, normalised by the gateway. */
  msisdn: string;
}

/**
 * A code presented for validation. It never travels in clear: the gateway sends its length and
 * its keyed hash (`keyedHash(key, uid, code)`) under every key of VERIFY_CODE_HASH_KEYS, by key id,
 * so the service can compare with the hash it stored under whichever key was current then.
 */
export interface PresentedCode {
  length: number;
  digests: Record<string, string>;
}

export interface CheckVerificationData {
  accountId: string;
  subAccountId: string;
  uid: string;
  /** Absent: only read the status (nothing changes). */
  code?: PresentedCode;
}

export type StartVerificationCommand = CommandMessage<StartVerificationData, 'StartVerification'>;
export type CheckVerificationCommand = CommandMessage<CheckVerificationData, 'CheckVerification'>;

export type VerificationStatus = 'WAITING' | 'VERIFIED' | 'FAILED' | 'EXPIRED';

/** The contract's verification request object: the response of generation and of validation. */
export interface VerificationView {
  uid: string;
  resourceUri: string;
  msisdn: number;
  status: VerificationStatus;
  attempt: number;
  expiresAt: string;
  nextSmsAfter: string;
}
