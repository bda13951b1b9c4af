import { ApiErrorCode } from '@seed/contracts';
import type { SmsBatchItem, SmsCommonProperties, SubmitBatchData } from '@seed/sms-batch-contracts';
import { ApiError } from '../http/api-error';
import { validateBody } from '../http/validate-body';
import { BatchRequestDto, type SmsPropertiesDto } from './batch-request.dto';

export const MAX_MESSAGES = 10_000;
const MAX_SCHEDULE_AHEAD_MS = 7 * 24 * 3600_000;

/**
 * Whole-request checks: anything here refuses the batch as a whole with a 400 and nothing is
 * accepted. Per-message problems (numbers, text and source limits, expiry) are for sms-batch to
 * decide, message by message.
 */
export function toSubmitBatchData(body: unknown, accountId: string, subAccountId: string, now: Date): SubmitBatchData {
  const messages = (body as { messages?: unknown } | null)?.messages;
  if (Array.isArray(messages) && messages.length > MAX_MESSAGES) {
    throw new ApiError(400, ApiErrorCode.BulkLimitReached, `a batch holds at most ${MAX_MESSAGES} messages; this one has ${messages.length}`);
  }
  const dto = validateBody(BatchRequestDto, body);
  if (dto.messages.length === 0) throw ApiError.badRequest('messages must be a non-empty array');
  dto.messages.forEach((item, i) => {
    if (item === null || typeof item !== 'object' || Array.isArray(item)) throw ApiError.badRequest(`messages.${i} must be an object`);
  });
  checkSchedule(dto.template, 'template', now);
  dto.messages.forEach((item, i) => checkSchedule(item, `messages.${i}`, now));

  return {
    accountId,
    subAccountId,
    ...(dto.clientBatchId !== undefined ? { clientBatchId: dto.clientBatchId } : {}),
    includeMessagesInResponse: dto.includeMessagesInResponse === true,
    ...(dto.template ? { template: common(dto.template) } : {}),
    messages: dto.messages.map(
      (item): SmsBatchItem => ({
        ...common(item),
        destination: item.destination ?? '',
        ...(item.country !== undefined ? { country: item.country } : {}),
        ...(item.clientMessageId !== undefined ? { clientMessageId: item.clientMessageId } : {}),
      }),
    ),
  };
}

function checkSchedule(props: SmsPropertiesDto | undefined, path: string, now: Date): void {
  if (props?.scheduled === undefined) return;
  if (Date.parse(props.scheduled) - now.getTime() > MAX_SCHEDULE_AHEAD_MS) {
    throw new ApiError(400, ApiErrorCode.InvalidScheduleTime, `${path}.scheduled is more than 7 days ahead`);
  }
}

function common(props: SmsPropertiesDto): SmsCommonProperties {
  const out: SmsCommonProperties = {};
  if (props.text !== undefined) out.text = props.text;
  if (props.source !== undefined) out.source = props.source;
  if (props.encoding !== undefined) out.encoding = props.encoding;
  if (props.scheduled !== undefined) out.scheduled = new Date(props.scheduled).toISOString();
  if (props.expiry !== undefined) out.expiry = new Date(props.expiry).toISOString();
  if (props.dlrCallbackUrl !== undefined) out.dlrCallbackUrl = props.dlrCallbackUrl;
  return out;
}
