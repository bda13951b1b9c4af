import type { DeliveryStatusWebhook, InboundMessageWebhook, WebhookState } from '@seed/webhook-dispatcher-contracts';
import type {
  InboundMessageReceivedV1,
  MessageRef,
  MessageRejectedV1,
  MessageUndeliveredV1,
} from '@seed/sms-batch-contracts';

/** An sms-batch event as the dispatcher reads it from the topic. */
export interface SourceEvent {
  eventId: string;
  type: string;
  streamId: string;
  streamPosition: number;
  occurredAt: string;
  data: unknown;
  /** W3C trace context of the request behind the event, when it has one. */
  traceparent?: string | null;
}

/** One status change of a message, ready to be delivered. */
export interface StatusChange {
  umid: string;
  accountId: string;
  /** The message's stream position: the order in which a message's changes must reach an endpoint. */
  sequence: number;
  /** The message's own callback URL (an inbound message's: its number's), or null (then the account's default applies). */
  dlrCallbackUrl: string | null;
  body: DeliveryStatusWebhook | InboundMessageWebhook;
}

export const INBOUND_WEBHOOK_DESCRIPTION = 'Inbound message received';

export const WEBHOOK_DESCRIPTION = 'Outbound message status changed';

/** The sms-batch event types that stand for a status change (statusChangeOf); the others are never delivered. */
export const STATUS_CHANGE_TYPES: ReadonlySet<string> = new Set(['MessageRejected', 'MessageSent', 'MessageDelivered', 'MessageUndelivered', 'InboundMessageReceived']);

/** The status changes that end a message (no later one follows): the ones the final-status reconciliation watches for. */
export const FINAL_STATUS_TYPES: ReadonlySet<string> = new Set(['MessageRejected', 'MessageDelivered', 'MessageUndelivered']);

/**
 * The status change an sms-batch event stands for, or null for events that change no status a
 * webhook reports: `BatchSubmitted`, `ReceiptRecorded`, and `MessageQueued` (the batch response
 * already told the client its messages were queued; webhooks start with what happens after).
 */
export function statusChangeOf(event: SourceEvent): StatusChange | null {
  switch (event.type) {
    case 'MessageRejected': {
      const d = event.data as MessageRejectedV1;
      return change(event, d, 'rejected', d.description, null, null);
    }
    case 'MessageSent':
      return change(event, event.data as MessageRef, 'sent', 'SMS is handed to the carrier', null, null);
    case 'MessageDelivered':
      return change(event, event.data as MessageRef, 'delivered', 'SMS is delivered to the handset', null, null);
    case 'MessageUndelivered': {
      const d = event.data as MessageUndeliveredV1;
      return change(event, d, 'undelivered', d.detail, d.errorCode, d.errorMessage);
    }
    case 'InboundMessageReceived':
      return inbound(event, event.data as InboundMessageReceivedV1);
    default:
      return null;
  }
}

function change(
  event: SourceEvent,
  ref: MessageRef,
  state: WebhookState,
  detail: string,
  errorCode: string | null,
  errorMessage: string | null,
): StatusChange {
  return {
    umid: ref.umid,
    accountId: ref.accountId,
    sequence: event.streamPosition,
    dlrCallbackUrl: ref.dlrCallbackUrl ?? null,
    body: {
      namespace: 'SMS',
      eventType: 'outbound_message_status_changed',
      description: WEBHOOK_DESCRIPTION,
      payload: {
        umid: ref.umid,
        batchId: ref.batchId,
        clientMessageId: ref.clientMessageId ?? null,
        clientBatchId: ref.clientBatchId ?? null,
        subAccountId: ref.subAccountId,
        source: ref.source ?? null,
        destination: ref.destination,
        smsCount: ref.smsCount,
        status: { state, detail, timestamp: event.occurredAt, errorCode, errorMessage },
      },
    },
  };
}

/** An inbound message to one of an account's numbers; one to a number of no account is posted nowhere. */
function inbound(event: SourceEvent, d: InboundMessageReceivedV1): StatusChange | null {
  if (d.accountId === null || d.subAccountId === null) return null;
  return {
    umid: d.umid,
    accountId: d.accountId,
    sequence: event.streamPosition,
    dlrCallbackUrl: d.inboundWebhookUrl,
    body: {
      namespace: 'SMS',
      eventType: 'inbound_message_received',
      description: INBOUND_WEBHOOK_DESCRIPTION,
      payload: {
        umid: d.umid,
        subAccountId: d.subAccountId,
        source: d.source,
        destination: d.destination,
        body: d.body,
        encoding: d.encoding,
        smsCount: d.smsCount,
        timestamp: d.receivedAt,
        incomplete: d.incomplete,
      },
    },
  };
}
