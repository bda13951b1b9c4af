import { ApiError } from '../http/api-error';
import { verifyMsisdn } from '../verify/verify-msisdn';

/**
 * What an operator may write for a recipient in the path: E.164 with `+`, `00` or nothing in front.
 * No separators: `/opt-outs/+44 7911…` is not a path anyone types, and a space would need escaping.
 */
export const PATH_MSISDN_PATTERN = '^(\\+|00)?[0-9]{1,15}$';
/** The list cursor: a stored MSISDN (E.164 digits without `+`), as `next` answers it. */
export const CURSOR_PATTERN = '^[0-9]{1,15}$';
export const LIST_LIMIT = { min: 1, max: 1000, default: 100 } as const;

const PATH_MSISDN = new RegExp(PATH_MSISDN_PATTERN);
const CURSOR = new RegExp(CURSOR_PATTERN);
const WHOLE_NUMBER = /^[0-9]{1,7}$/;

export interface OptOutListParameters {
  after: string | null;
  limit: number;
}

/**
 * The recipient of the path in the form outbound destinations are stored in (E.164 digits without
 * `+`), read the way sms-batch reads a destination (verify-msisdn.ts mirrors its numbering plan):
 * an opt-out stored under any other spelling would never match a message.
 */
export function pathMsisdn(value: string): string {
  const msisdn = PATH_MSISDN.test(value) ? verifyMsisdn(value) : null;
  if (msisdn === null) {
    throw ApiError.badRequest(`msisdn ${JSON.stringify(value)} must be a valid international number such as +447911123456, 447911123456 or 00447911123456`);
  }
  return msisdn;
}

/** `?after=&limit=` of the list; a parameter given twice arrives as an array and is refused. */
export function listParameters(query: unknown): OptOutListParameters {
  const given = (query ?? {}) as Record<string, unknown>;
  const after = given['after'];
  const limit = given['limit'];
  if (after !== undefined && (typeof after !== 'string' || !CURSOR.test(after))) {
    throw ApiError.badRequest('after must be an MSISDN of 1-15 digits without + (the next of the previous page), given once');
  }
  if (limit !== undefined && (typeof limit !== 'string' || !WHOLE_NUMBER.test(limit) || Number(limit) < LIST_LIMIT.min || Number(limit) > LIST_LIMIT.max)) {
    throw ApiError.badRequest(`limit must be an integer from ${LIST_LIMIT.min} to ${LIST_LIMIT.max}, given once`);
  }
  return { after: after ?? null, limit: limit === undefined ? LIST_LIMIT.default : Number(limit) };
}
