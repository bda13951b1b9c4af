import type { CommandMessage, CommandReply } from '@seed/contracts';

/**
 * The topic of the api-gateway's commands and queries to sms-batch, every type (operator commands
 * too: carriers, routes, numbers, opt-outs); keyed by sub-account id. Only the gateway may write it.
 */
export const SMS_BATCH_COMMAND_TOPIC = 'sms-batch.commands.v1';

/**
 * The topic of the neighbouring services' sends (verification's codes, agent-token's guest links);
 * keyed by sub-account id. sms-batch takes only SMS_BATCH_SERVICE_COMMAND_TYPES from it, so a
 * service allowed to write it can send SMS for its accounts and nothing else.
 */
export const SMS_BATCH_SERVICE_COMMAND_TOPIC = 'sms-batch.service-commands.v1';
export const SMS_BATCH_SERVICE_COMMAND_TYPES = ['SubmitBatch', 'SubmitBatches'] as const;

export type SmsEncodingName = 'AUTO' | 'GSM7' | 'UCS2';

/** Properties a template or an item can carry; an item's value overrides the template's. */
export interface SmsCommonProperties {
  text?: string;
  source?: string;
  encoding?: SmsEncodingName;
  /** ISO-8601 instants, already checked for format by the gateway. */
  scheduled?: string;
  expiry?: string;
  dlrCallbackUrl?: string;
}

export interface SmsBatchItem extends SmsCommonProperties {
  destination: string;
  country?: string;
  clientMessageId?: string;
  /**
   * For the platform's own senders (verification, agent-token), never set by the gateway: the real
   * text, sealed with the shared MESSAGE_SEALING_KEYS (`@seed/platform-secrets`). sms-batch opens
   * it to count parts and to send; `text` then holds a redacted form (the code or token masked),
   * which is all that events, read models and logs ever show.
   */
  sealedText?: string;
}

export interface SubmitBatchData {
  accountId: string;
  subAccountId: string;
  clientBatchId?: string;
  includeMessagesInResponse: boolean;
  template?: SmsCommonProperties;
  messages: SmsBatchItem[];
  /**
   * A message that would be rejected refuses the whole request instead (400 with the code of its
   * rejection, nothing appended): the current API generation's single send answers a bad message
   * that way rather than accepting it as REJECTED.
   */
  refuseRejected?: boolean;
  /**
   * The request's `Idempotency-Key` (current API generation): a later request of the account with
   * the same key within 24 h is answered with this one's batch, or refused (422) when its
   * `requestHash` differs. Only on `SubmitBatch` from the gateway.
   */
  idempotency?: BatchIdempotency;
}

export interface BatchIdempotency {
  key: string;
  /** SHA-256 (hex) of the operation, sub-account and body, computed by the gateway. */
  requestHash: string;
}

/** The reply of `SubmitBatch`: the response body, flagged when it answers a known Idempotency-Key. */
export type SubmitBatchReply = BatchResponse & {
  /** Set only when the batch is an earlier request's (same Idempotency-Key); the gateway turns it into a header. */
  idempotentReplay?: true;
};

export type SubmitBatchCommand = CommandMessage<SubmitBatchData, 'SubmitBatch'>;

/**
 * Several batches of the platform's own senders in one command (verification's SMS): each decided
 * as a `SubmitBatch` of its own, in one transaction, and answered in order. Each must carry a
 * `clientBatchId`, which is what makes a redelivered command answer with the same batches. A batch
 * refused (4xx) is refused alone; the command as a whole fails only when it cannot be decided.
 */
export interface SubmitBatchesData {
  batches: SubmitBatchesItem[];
}

export interface SubmitBatchesItem {
  batch: SubmitBatchData;
  /** The request the batch is part of: its events carry this correlation id and trace, not the command's. */
  correlationId: string;
  traceparent: string | null;
}

export interface SubmitBatchesResult {
  /** One reply per batch, in the order of `batches`. */
  results: CommandReply<BatchResponse>[];
}

export type SubmitBatchesCommand = CommandMessage<SubmitBatchesData, 'SubmitBatches'>;

export type SmsBatchCommand = SubmitBatchCommand | SubmitBatchesCommand;

/** The contract's response body of `POST /sms/v1/{subAccountId}/many`. */
export interface BatchResponseMessage {
  umid: string;
  clientMessageId?: string;
  destination: string;
  encoding: 'GSM7' | 'UCS2';
  status: { code: 'QUEUED' | 'REJECTED'; description: string };
}

export interface BatchResponse {
  batchId: string;
  clientBatchId?: string;
  acceptedCount: number;
  rejectedCount: number;
  messages?: BatchResponseMessage[];
}
