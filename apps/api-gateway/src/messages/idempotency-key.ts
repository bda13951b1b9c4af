import { createHash } from 'node:crypto';
import type { BatchIdempotency } from '@seed/sms-batch-contracts';
import { ApiError } from '../http/api-error';

/** The request header (Stripe's and the IETF draft's name). */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
/** Set to `true` on an answer that is an earlier request's, repeated. */
export const IDEMPOTENT_REPLAYED_HEADER = 'Idempotent-Replayed';

/** Visible ASCII, 1 to 255 characters: a UUID, or any identifier of the client's own. */
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/**
 * The idempotency of a request with an `Idempotency-Key`, or undefined without one. The hash covers
 * the operation, the sub-account and the body (keys in any order), so the same key sent with
 * another of them is recognised as another request. A malformed key is a 400.
 */
export function idempotencyOf(header: string | string[] | undefined, operation: string, subAccountId: string, body: unknown): BatchIdempotency | undefined {
  if (header === undefined) return undefined;
  const key = Array.isArray(header) ? header.join(',') : header;
  if (!KEY_PATTERN.test(key)) throw ApiError.badRequest(`${IDEMPOTENCY_KEY_HEADER} must be 1 to 255 visible ASCII characters`);
  return { key, requestHash: createHash('sha256').update(canonicalJson([operation, subAccountId, body])).digest('hex') };
}

/** JSON with every object's keys sorted: the same value, however its keys were ordered, gives the same text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
