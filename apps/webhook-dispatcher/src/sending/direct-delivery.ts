import type { DeliveryScheduledV1 } from '@seed/webhook-dispatcher-domain';

// Declared beside ClaimedDelivery, which refers to them: one file, no cycle.

/**
 * A status change the intake hands to the sender for its first attempt without writing it down
 * (`WebhookSender.sendDirect`): its event's offset is committed only once the attempt succeeded or
 * the delivery was written down after all, so the event log of sms-batch's topic is its record
 * until then.
 */
export interface DirectDelivery {
  scheduled: DeliveryScheduledV1;
  origin: string;
  traceparent: string | null;
}

/**
 * The sender's offer of first attempts from the intake: `open(origin)` whether it takes any there
 * at all; `take(origin)` whether it has room for one more there, and counts it.
 */
export interface DirectOffer {
  open(origin: string): boolean;
  take(origin: string): boolean;
  /**
   * Whether this status event was handed over for a direct delivery already (among the last
   * RECENT_DIRECT of this replica): the relay publishes at least once, and an event the topic
   * carries twice must not be posted twice.
   */
  handedOver(eventId: string): boolean;
}

/** A direct delivery to write down: in flight (leased to this replica, its outcome recorded after) or not started (due for any claim). */
export interface DeliveryToWrite {
  scheduled: DeliveryScheduledV1;
  traceparent: string | null;
  inFlight: boolean;
}

/**
 * Writes direct deliveries down as deliveries the intake had scheduled (events, row, the source
 * event recorded as processed), in one transaction. Answers the lease token of each in-flight one
 * written; one missing was scheduled already by another replica (its partition moved), which owns it.
 */
export type WriteDown = (deliveries: readonly DeliveryToWrite[], leaseMs: number) => Promise<Map<string, string>>;

/**
 * Records the status events of direct deliveries that succeeded as handled, in one statement: the
 * record the final-status reconciliation finds them by (a success writes nothing else), and what
 * keeps a redelivered copy of the event from being posted again.
 */
export type RecordSent = (sourceEventIds: readonly string[]) => Promise<void>;
