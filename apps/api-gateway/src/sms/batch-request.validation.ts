import { ApiErrorCode } from '@seed/contracts';
import type { SmsBatchItem, SmsCommonProperties, SubmitBatchData } from '@seed/sms-batch-contracts';
import { ApiError } from '../http/api-error';
import { validateBody } from '../http/validate-body';
import { BatchRequestDto } from './batch-request.dto';
import { checkItem, checkTemplate } from './sms-properties.rules';

export const MAX_MESSAGES = 10_000;
const MAX_SCHEDULE_AHEAD_MS = 7 * 24 * 3600_000;

type Properties = Record<string, unknown>;

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
  // The envelope goes through class-transformer and class-validator without its items, which
  // checkItem checks below: class-transformer copied each item into a new object, about half of
  // this function's time on a 10,000-message batch (by the gateway's profile under bench:e2e).
  const items = Array.isArray(messages) ? messages : undefined;
  const dto = validateBody(BatchRequestDto, items ? { ...(body as object), messages: [] } : body);
  if (items) dto.messages = items;
  if (dto.messages.length === 0) throw ApiError.badRequest('messages must be a non-empty array');
  const template = dto.template ?? undefined;
  if (template !== undefined && template !== null) {
    checkTemplate(template);
    checkSchedule(template as Properties, 'template', now);
  }
  dto.messages.forEach((item, i) => {
    checkItem(item, i);
    checkSchedule(item as Properties, `messages.${i}`, now);
  });

  return {
    accountId,
    subAccountId,
    // null counts as absent, as for every optional field; a null clientBatchId would fail in sms-batch.
    ...(dto.clientBatchId !== undefined && dto.clientBatchId !== null ? { clientBatchId: dto.clientBatchId } : {}),
    includeMessagesInResponse: dto.includeMessagesInResponse === true,
    ...(template ? { template: common(template as Properties, {}) } : {}),
    messages: dto.messages.map((raw): SmsBatchItem => {
      const item = raw as Properties;
      // Filled in place, not a fresh object spread into each item (docs/adr/0039-batch-acceptance-without-per-item-copies.md).
      const out = common<SmsBatchItem>(item, { destination: (item['destination'] as string | undefined) ?? '' });
      if (typeof item['country'] === 'string') out.country = item['country'];
      if (typeof item['clientMessageId'] === 'string') out.clientMessageId = item['clientMessageId'];
      return out;
    }),
  };
}

function checkSchedule(props: Properties, path: string, now: Date): void {
  const scheduled = props['scheduled'];
  if (typeof scheduled !== 'string') return;
  if (Date.parse(scheduled) - now.getTime() > MAX_SCHEDULE_AHEAD_MS) {
    throw new ApiError(400, ApiErrorCode.InvalidScheduleTime, `${path}.scheduled is more than 7 days ahead`);
  }
}

/** Only the known properties travel on (unknown fields are ignored); instants normalised to UTC. Fills and returns `out`. */
function common<T extends SmsCommonProperties>(props: Properties, out: T): T {
  if (typeof props['text'] === 'string') out.text = props['text'];
  if (typeof props['source'] === 'string') out.source = props['source'];
  if (typeof props['encoding'] === 'string') out.encoding = props['encoding'] as SmsCommonProperties['encoding'];
  if (typeof props['scheduled'] === 'string') out.scheduled = new Date(props['scheduled']).toISOString();
  if (typeof props['expiry'] === 'string') out.expiry = new Date(props['expiry']).toISOString();
  if (typeof props['dlrCallbackUrl'] === 'string') out.dlrCallbackUrl = props['dlrCallbackUrl'];
  return out;
}
