import type { NewEvent } from '@seed/contracts';
import type { MessageQueuedV1, MessageRejectedV1, RejectionDescription, SmsBatchItem, SmsEncodingName } from '@seed/sms-batch-contracts';
import type { TextAnalysis } from './sms-text';

/** The events of one message of a batch, queued or rejected, as the batch decider builds them. */

export type MessageEvent = NewEvent<MessageQueuedV1, 'MessageQueued'> | NewEvent<MessageRejectedV1, 'MessageRejected'>;

/** The effective properties of one message: the item's own, else the template's. */
export interface MergedMessage {
  text: string | undefined;
  source: string | null;
  encoding: SmsEncodingName;
  scheduledMs: number | null;
  expiryMs: number | null;
  dlrCallbackUrl: string | null;
}

/** What every message of one decision shares. */
export interface BatchContext {
  batchId: string;
  clientBatchId: string | null;
  accountId: string;
  subAccountId: string;
  now: string;
  nowMs: number;
}

// The event builders write every field out, the identity fields twice: spreading a shared identity
// object into each event made a large batch's decision several times slower, on the path of every
// batch's acceptance (docs/adr/0039-batch-acceptance-without-per-item-copies.md). Keep them written out.
export function queuedEvent(
  batch: BatchContext,
  item: SmsBatchItem,
  index: number,
  umid: string,
  message: MergedMessage,
  analysis: TextAnalysis,
  destination: string,
): MessageEvent {
  return {
    type: 'MessageQueued',
    schemaVersion: 1,
    data: {
      umid,
      batchId: batch.batchId,
      clientBatchId: batch.clientBatchId,
      clientMessageId: item.clientMessageId ?? null,
      accountId: batch.accountId,
      subAccountId: batch.subAccountId,
      index,
      destination,
      source: message.source,
      text: analysis.text,
      encoding: analysis.encoding,
      smsCount: analysis.parts,
      // A schedule that is not in the future means "send now" (product-decisions.md).
      scheduled:
        message.scheduledMs !== null && message.scheduledMs > batch.nowMs ? isoInstant(message.scheduledMs) : null,
      expiry: message.expiryMs === null ? null : isoInstant(message.expiryMs),
      dlrCallbackUrl: message.dlrCallbackUrl,
      queuedAt: batch.now,
    },
  };
}

/**
 * A rejected message keeps the destination as given and still reports the encoding and parts its
 * text would have needed; with no text nothing would be sent, so GSM7 and 0 parts.
 */
export function rejectedEvent(
  batch: BatchContext,
  item: SmsBatchItem,
  index: number,
  umid: string,
  message: MergedMessage,
  analysis: TextAnalysis | null,
  description: RejectionDescription,
): MessageEvent {
  return {
    type: 'MessageRejected',
    schemaVersion: 1,
    data: {
      umid,
      batchId: batch.batchId,
      clientBatchId: batch.clientBatchId,
      clientMessageId: item.clientMessageId ?? null,
      accountId: batch.accountId,
      subAccountId: batch.subAccountId,
      index,
      destination: item.destination,
      source: message.source,
      encoding: analysis?.encoding ?? 'GSM7',
      smsCount: analysis?.parts ?? 0,
      dlrCallbackUrl: message.dlrCallbackUrl,
      description,
      rejectedAt: batch.now,
    },
  };
}

/** Events carry one timestamp format (ISO-8601 UTC with milliseconds and Z) whatever the caller sent. */
function isoInstant(ms: number): string {
  return new Date(ms).toISOString();
}
