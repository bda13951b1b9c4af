import { ApiError } from '../http/api-error';
import { INBOUND_LIMIT } from './inbound-read.openapi';

export interface InboundListParameters {
  since: string | null;
  before: string | null;
  limit: number;
}

const KNOWN = new Set(['since', 'before', 'limit']);
/** A log position: within PostgreSQL's bigint. */
const CURSOR = /^[0-9]{1,18}$/;
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;
const WHOLE_NUMBER = /^[0-9]{1,4}$/;

/**
 * `?since=&before=&limit=` of the inbound list. An unknown parameter, or one given twice (it then
 * arrives as an array), is refused rather than ignored: a typo must not silently list everything.
 */
export function inboundListParameters(query: unknown): InboundListParameters {
  const given = (query ?? {}) as Record<string, unknown>;
  const unknown = Object.keys(given).filter((name) => !KNOWN.has(name));
  if (unknown.length > 0) throw ApiError.badRequest(`unknown query parameter ${unknown.map((n) => JSON.stringify(n)).join(', ')}: since, before and limit are known`);
  const { since, before, limit } = given;
  // Instants before 1970 find nothing anyway, and years PostgreSQL refuses (0000) stay out of the query.
  if (since !== undefined && (typeof since !== 'string' || !ISO_INSTANT.test(since) || !(Date.parse(since) >= 0))) throw ApiError.badRequest('since must be an ISO 8601 date-time, given once');
  if (before !== undefined && (typeof before !== 'string' || !CURSOR.test(before))) throw ApiError.badRequest('before must be the next of a previous page, given once');
  if (limit !== undefined && (typeof limit !== 'string' || !WHOLE_NUMBER.test(limit) || Number(limit) < INBOUND_LIMIT.min || Number(limit) > INBOUND_LIMIT.max)) {
    throw ApiError.badRequest(`limit must be a whole number from ${INBOUND_LIMIT.min} to ${INBOUND_LIMIT.max}, given once`);
  }
  return { since: since === undefined ? null : new Date(since).toISOString(), before: before ?? null, limit: limit === undefined ? INBOUND_LIMIT.default : Number(limit) };
}
