import type { CommandMessage } from '@seed/contracts';

/** Topic the owning service consumes its commands from; keyed by sub-account id. */
export const SMS_BATCH_COMMAND_TOPIC = 'sms-batch.commands.v1';

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
}

export type SubmitBatchCommand = CommandMessage<SubmitBatchData, 'SubmitBatch'>;

export type SmsBatchCommand = SubmitBatchCommand;

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
