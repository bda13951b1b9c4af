import { ApiErrorCode } from '@seed/contracts';
import type { SubmitBatchData } from '@seed/sms-batch-contracts';
import { ApiError } from '../http/api-error';
import { MAX_MESSAGES, toSubmitBatchData } from './batch-request.validation';

type Properties = Record<string, unknown>;

/**
 * `POST /sms/v1/{subAccountId}/many/compact`: one text to many destinations. It is `many` with one
 * message per destination (product-decisions, "Compact batch"), so the request is rewritten into
 * that and goes through the same checks, command and decisions; only what cannot be said in
 * `many`'s terms is checked here.
 */
export function toCompactBatchData(body: unknown, accountId: string, subAccountId: string, now: Date): SubmitBatchData {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw ApiError.badRequest('the body must be a JSON object');
  const { destinations, messages: _ignored, ...rest } = body as Properties;
  if (!Array.isArray(destinations) || destinations.length === 0) throw ApiError.badRequest('destinations must be a non-empty array');
  if (destinations.length > MAX_MESSAGES) {
    throw new ApiError(400, ApiErrorCode.BulkLimitReached, `a batch holds at most ${MAX_MESSAGES} destinations; this one has ${destinations.length}`);
  }
  destinations.forEach((destination, i) => {
    // null counts as absent (that message is rejected); another type refuses the request, as in `many`.
    if (destination !== null && typeof destination !== 'string') throw new ApiError(400, ApiErrorCode.InvalidMsisdn, `destinations.${i} must be a string`);
  });
  const text = (rest['template'] as Properties | null | undefined)?.['text'];
  if (typeof text !== 'string' || text.length === 0) throw new ApiError(400, ApiErrorCode.InvalidText, 'template.text is required');
  return toSubmitBatchData({ ...rest, messages: destinations.map((destination) => (destination === null ? {} : { destination })) }, accountId, subAccountId, now);
}
