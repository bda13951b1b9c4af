import type { CommandMessage } from '@seed/contracts';

/**
 * Opt-outs: a recipient (an MSISDN, E.164 digits without `+`) who asked a sub-account to stop
 * messaging it. While opted out, no message of that sub-account to it is handed to a carrier: it
 * ends `undelivered` with `errorCode` OPTED_OUT (batches, single sends, Verify and guest-link SMS
 * alike). One stream per sub-account and recipient (`opt-out-<subAccountId>-<msisdn>`).
 */
export const OPTED_OUT_ERROR_CODE = 'OPTED_OUT';

export const optOutStreamId = (subAccountId: string, msisdn: string): string => `opt-out-${subAccountId}-${msisdn}`;

/** Who changed it: the recipient by a keyword (STOP, START, ...) or an operator through the admin API. */
export type OptOutSource = 'keyword' | 'admin';

export interface RecipientOptedOutV1 {
  accountId: string;
  subAccountId: string;
  msisdn: string;
  source: OptOutSource;
  /** The keyword as the recipient sent it (`STOP`), or null. */
  keyword: string | null;
  optedOutAt: string;
}

export interface RecipientOptedInV1 {
  accountId: string;
  subAccountId: string;
  msisdn: string;
  source: OptOutSource;
  keyword: string | null;
  optedInAt: string;
}

export interface OptOutView {
  subAccountId: string;
  msisdn: string;
  source: OptOutSource;
  keyword: string | null;
  optedOutAt: string;
}

export interface OptOutPage {
  optOuts: OptOutView[];
  /** Pass as `after` for the next page; null on the last one. */
  next: string | null;
}

interface OptOutTarget {
  accountId: string;
  subAccountId: string;
  msisdn: string;
}

export type OptOutCommand = CommandMessage<OptOutTarget & { source: OptOutSource; keyword: string | null }, 'OptOut'>;
export type OptInCommand = CommandMessage<OptOutTarget & { source: OptOutSource; keyword: string | null }, 'OptIn'>;
/** A sub-account's opted-out recipients, by MSISDN, `limit` (1-1000) after the cursor `after`. */
export type ListOptOutsQuery = CommandMessage<{ accountId: string; subAccountId: string; after: string | null; limit: number }, 'ListOptOuts'>;
export type GetOptOutQuery = CommandMessage<OptOutTarget, 'GetOptOut'>;
