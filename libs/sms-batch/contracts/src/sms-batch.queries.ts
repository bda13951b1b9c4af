import type { CommandMessage } from '@seed/contracts';

/** Reads answered by sms-batch over the same request-reply path as its commands. */
export interface GetMessageData {
  accountId: string;
  subAccountId: string;
  umid: string;
}
export type GetMessageQuery = CommandMessage<GetMessageData, 'GetMessage'>;

export interface GetBatchData {
  accountId: string;
  subAccountId: string;
  batchId: string;
}
export type GetBatchQuery = CommandMessage<GetBatchData, 'GetBatch'>;

export type MessageStateName = 'queued' | 'rejected' | 'sent' | 'delivered' | 'undelivered';

export interface MessageStatusView {
  state: MessageStateName;
  detail: string;
  timestamp: string;
  errorCode: string | null;
  errorMessage: string | null;
}

/** `GET /sms/v1/{subAccountId}/messages/{umid}` */
export interface MessageView {
  umid: string;
  batchId: string;
  clientBatchId: string | null;
  clientMessageId: string | null;
  subAccountId: string;
  destination: string;
  source: string | null;
  encoding: 'GSM7' | 'UCS2';
  smsCount: number;
  scheduled: string | null;
  expiry: string | null;
  status: MessageStatusView;
  /** Every step, oldest first; receipts that changed nothing appear with the state they left. */
  history: (MessageStatusView & { event: string; carrierMessageIds?: string[]; carrierId?: string })[];
}

/** `GET /sms/v1/{subAccountId}/batches/{batchId}` */
export interface BatchView {
  batchId: string;
  clientBatchId: string | null;
  subAccountId: string;
  submittedAt: string;
  acceptedCount: number;
  rejectedCount: number;
  /** Messages per current state. */
  states: Record<MessageStateName, number>;
}
