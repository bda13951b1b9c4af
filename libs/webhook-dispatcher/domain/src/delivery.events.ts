import type { NewEvent } from '@seed/contracts';

/*
 * Events of one delivery (stream `webhook-delivery-<deliveryId>`): one status change of one message
 * on its way to one URL. Internal to the dispatcher (its own log); the admin API reads them through
 * the `deliveries` read model.
 */

export const deliveryStreamId = (deliveryId: string): string => `webhook-delivery-${deliveryId}`;

export interface DeliveryScheduledV1 {
  deliveryId: string;
  accountId: string;
  umid: string;
  /** The message's stream position of the status change: order among the message's deliveries. */
  sequence: number;
  url: string;
  /** The JSON body, exactly as it is sent and signed. */
  body: string;
  /** The sms-batch event it stands for. */
  sourceEventId: string;
  scheduledAt: string;
}

export interface DeliveryAttemptFailedV1 {
  deliveryId: string;
  attempt: number;
  /** The HTTP status answered (a 3xx, 4xx or 5xx), or null when there was no answer. */
  statusCode: number | null;
  timedOut: boolean;
  error: string;
  failedAt: string;
  /** When the next attempt is due; null when this failure dead-letters the delivery. */
  nextAttemptAt: string | null;
}

export interface DeliverySucceededV1 {
  deliveryId: string;
  attempt: number;
  statusCode: number;
  deliveredAt: string;
}

export type DeadLetterReason = 'retries-exhausted' | 'target-refused';

export interface DeliveryDeadLetteredV1 {
  deliveryId: string;
  attempts: number;
  reason: DeadLetterReason;
  detail: string;
  deadLetteredAt: string;
}

export interface DeliveryRedrivenV1 {
  deliveryId: string;
  redrivenAt: string;
}

export type DeliveryEvent =
  | NewEvent<DeliveryScheduledV1, 'DeliveryScheduled'>
  | NewEvent<DeliveryAttemptFailedV1, 'DeliveryAttemptFailed'>
  | NewEvent<DeliverySucceededV1, 'DeliverySucceeded'>
  | NewEvent<DeliveryDeadLetteredV1, 'DeliveryDeadLettered'>
  | NewEvent<DeliveryRedrivenV1, 'DeliveryRedriven'>;
