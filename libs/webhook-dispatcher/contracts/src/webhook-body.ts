/** Message states a delivery-status webhook reports (`queued` is not sent: the batch response told it). */
export type WebhookState = 'rejected' | 'sent' | 'delivered' | 'undelivered';

/** The delivery-status webhook body of product-decisions.md: one per status change. */
export interface DeliveryStatusWebhook {
  namespace: 'SMS';
  eventType: 'outbound_message_status_changed';
  description: string;
  payload: {
    umid: string;
    batchId: string;
    clientMessageId: string | null;
    clientBatchId: string | null;
    subAccountId: string;
    source: string | null;
    destination: string;
    smsCount: number;
    status: {
      state: WebhookState;
      detail: string;
      timestamp: string;
      errorCode: string | null;
      errorMessage: string | null;
    };
  };
}

/**
 * The inbound SMS webhook body of product-decisions.md ("Inbound SMS and opt-out"): one per inbound
 * message to a number of the account, its parts joined; signed and retried like status webhooks.
 */
export interface InboundMessageWebhook {
  namespace: 'SMS';
  eventType: 'inbound_message_received';
  description: string;
  payload: {
    umid: string;
    subAccountId: string;
    source: string;
    destination: string;
    body: string;
    encoding: string;
    smsCount: number;
    timestamp: string;
    /** Some parts of a concatenated message never came within 10 minutes: `body` lacks them. */
    incomplete: boolean;
  };
}

/** Headers of every webhook request. */
export const WebhookHeader = {
  /** `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">` (one v1 per valid secret). */
  Signature: 'x-seed-signature',
  /** The delivery's id: the same on every retry of one status change, for receivers' dedup. */
  DeliveryId: 'x-seed-delivery-id',
  /** 1 on the first try, then 2, 3, ... */
  Attempt: 'x-seed-attempt',
} as const;
