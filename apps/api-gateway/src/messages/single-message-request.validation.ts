import { ApiErrorCode } from '@seed/contracts';
import type { SubmitBatchData } from '@seed/sms-batch-contracts';
import { ApiError } from '../http/api-error';
import { toSubmitBatchData } from '../sms/batch-request.validation';

/**
 * `POST /api/v1/subaccounts/{subAccountId}/messages` (product-decisions, "Current API generation"):
 * one SMS with the fields of a `many` item and a required `text`. It becomes a batch of one that
 * sms-batch decides as any other, except that a message it would reject refuses the request with
 * 400 and the code of the rejection (`refuseRejected`), writing nothing.
 */
export function toSingleMessageData(body: unknown, accountId: string, subAccountId: string, now: Date): SubmitBatchData {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw ApiError.badRequest('the body must be a JSON object');
  const text = (body as Record<string, unknown>)['text'];
  if (text === undefined || text === null || text === '') throw new ApiError(400, ApiErrorCode.InvalidText, 'text is required');
  try {
    return { ...toSubmitBatchData({ messages: [body] }, accountId, subAccountId, now), includeMessagesInResponse: true, refuseRejected: true };
  } catch (error) {
    // The batch checks name the field by its place in `messages`; here there is only the body.
    if (error instanceof ApiError) throw new ApiError(error.status, error.code, error.message.replace(/^messages\.0\.?/, '').trim() || error.message);
    throw error;
  }
}
