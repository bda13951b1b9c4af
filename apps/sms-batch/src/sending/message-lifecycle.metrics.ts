import { Counter } from 'prom-client';
import type { MessageLifecycleEvent } from '@seed/sms-batch-domain';

/**
 * What the lifecycle writer committed, by event: messages sent to the carrier, delivered, undelivered
 * (`reason`: expired, carrier-rejected, receipt, no-route), routing decisions
 * (`reason`: handed-off, refused, failed-over) and receipts that changed no state (`reason`: their
 * note). Sent minus delivered and undelivered-by-receipt over an hour is how many sent messages are
 * still waiting for their receipt (the dashboard's "receipts outstanding"); counted from commits, so
 * a flush that was rolled back and written again counts once.
 */
const lifecycleEvents = new Counter({
  name: 'sms_batch_lifecycle_events_total',
  help: 'Message lifecycle events committed by the sender and receipt writer, by event type and reason',
  labelNames: ['event', 'reason'] as const,
});

export function countLifecycleEvents(events: readonly MessageLifecycleEvent[]): void {
  for (const event of events) lifecycleEvents.inc({ event: event.type, reason: reasonOf(event) });
}

function reasonOf(event: MessageLifecycleEvent): string {
  switch (event.type) {
    case 'MessageUndelivered':
      return event.data.reason;
    case 'ReceiptRecorded':
      return event.data.note;
    case 'MessageRouted':
      return event.data.outcome;
    case 'MessageSent':
    case 'MessageDelivered':
      return '';
  }
}
