import type { CommandMessage } from '@seed/contracts';

/**
 * Numbers (long numbers and short codes) as data: each belongs to one sub-account, which receives
 * the inbound SMS sent to it (posted to `inboundWebhookUrl`, else the account's default callback
 * URL) and whose recipients' STOP/START/HELP it answers. One stream holds them all (`numbers`),
 * read by every sms-batch replica as the routing table is.
 */
export const NUMBERS_STREAM = 'numbers';

/** E.164 digits without `+` (a long number) or 3-8 digits (a short code). */
export const NUMBER_PATTERN = /^[0-9]{3,15}$/;

export interface NumberInput {
  accountId: string;
  subAccountId: string;
  /** http(s) URL inbound messages to this number are posted to; null: the account's default callback URL. */
  inboundWebhookUrl: string | null;
  /** Sent back to a recipient who texts HELP or INFO to this number; null: no answer. */
  helpText: string | null;
  /**
   * The carriers that may deliver inbound SMS to this number; absent or null: every carrier of the
   * routes that match the number. An inbound SMS from another carrier is recorded, marked
   * `unboundCarrier`, and not acted on (not posted, no opt-out, no HELP answer).
   */
  carriers?: string[] | null;
}

export interface NumberAssignedV1 extends NumberInput {
  number: string;
  assignedAt: string;
}

export interface NumberReleasedV1 {
  number: string;
  accountId: string;
  subAccountId: string;
  releasedAt: string;
}

export type NumberView = NumberAssignedV1;

export type PutNumberCommand = CommandMessage<{ number: string; assignment: NumberInput }, 'PutNumber'>;
export type RemoveNumberCommand = CommandMessage<{ number: string }, 'RemoveNumber'>;
export type GetNumberQuery = CommandMessage<{ number: string }, 'GetNumber'>;
/** Every number, or a sub-account's only, ordered by number. */
export type ListNumbersQuery = CommandMessage<{ subAccountId: string | null }, 'ListNumbers'>;

/** Key of every numbers command on the command topic: one partition, in order. */
export const NUMBERS_COMMAND_KEY = NUMBERS_STREAM;
