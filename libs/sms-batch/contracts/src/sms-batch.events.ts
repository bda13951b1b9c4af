import type { EventEnvelope } from '@seed/contracts';
import type { MessageDeliveredV1, MessageSentV1, MessageUndeliveredV1, ReceiptRecordedV1 } from './sms-message-lifecycle.events';

/** Public event topic of sms-batch: every event below, keyed by stream id, kept forever. */
export const SMS_BATCH_EVENT_TOPIC = 'sms-batch.events.v1';

export const batchStreamId = (batchId: string): string => `sms-batch-${batchId}`;
export const messageStreamId = (umid: string): string => `sms-message-${umid}`;

export const QUEUED_DESCRIPTION = 'SMS is accepted and queued for processing';

/** The contract's six rejection descriptions, word for word. */
export const RejectionDescription = {
  TextMissing: 'Text value is missing',
  TextTooLong: 'Invalid Text value. Reached max allowed limit',
  SourceTooLong: 'Invalid Source value. Reached max allowed limit',
  ExpiryReached: 'Expiry time already reached',
  InvalidMsisdn: 'Invalid MSISDN format (not E.164 international number)',
  InternalError: 'Internal server error',
} as const;
export type RejectionDescription = (typeof RejectionDescription)[keyof typeof RejectionDescription];

export interface BatchSubmittedV1 {
  batchId: string;
  clientBatchId: string | null;
  accountId: string;
  subAccountId: string;
  acceptedCount: number;
  rejectedCount: number;
  /** umids in request order, so the first response can be rebuilt exactly. */
  umids: string[];
  submittedAt: string;
}

interface MessageIdentity {
  umid: string;
  batchId: string;
  clientBatchId: string | null;
  clientMessageId: string | null;
  accountId: string;
  subAccountId: string;
  /** Index of the message in its batch request. */
  index: number;
}

export interface MessageQueuedV1 extends MessageIdentity {
  /** E.164 digits without `+`. */
  destination: string;
  source: string | null;
  /** The text as sent; for a sealed message, its redacted form (secrets masked). */
  text: string;
  /**
   * Only in sms-batch's own log, for messages of the platform's own senders: the real text, sealed
   * (see SmsBatchItem). The outbox relay leaves it out of the public topic.
   */
  sealedText?: string;
  encoding: 'GSM7' | 'UCS2';
  /** Number of SMS parts the text needs. */
  smsCount: number;
  scheduled: string | null;
  expiry: string | null;
  dlrCallbackUrl: string | null;
  queuedAt: string;
}

export interface MessageRejectedV1 extends MessageIdentity {
  /** The destination as given, since it may not be a valid number. */
  destination: string;
  source: string | null;
  encoding: 'GSM7' | 'UCS2';
  smsCount: number;
  dlrCallbackUrl: string | null;
  description: RejectionDescription;
  rejectedAt: string;
}

export type SmsBatchEvent =
  | EventEnvelope<BatchSubmittedV1, 'BatchSubmitted'>
  | EventEnvelope<MessageQueuedV1, 'MessageQueued'>
  | EventEnvelope<MessageRejectedV1, 'MessageRejected'>
  | EventEnvelope<MessageSentV1, 'MessageSent'>
  | EventEnvelope<MessageDeliveredV1, 'MessageDelivered'>
  | EventEnvelope<MessageUndeliveredV1, 'MessageUndelivered'>
  | EventEnvelope<ReceiptRecordedV1, 'ReceiptRecorded'>;
