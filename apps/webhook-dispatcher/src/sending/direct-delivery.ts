import type { AttemptOutcome, DeliveryScheduledV1 } from '@seed/webhook-dispatcher-domain';
import type { ClaimedDelivery } from './claimed-delivery';

/** A direct delivery as the sender holds it (with the secrets that sign it). */
export type DirectHeld = ClaimedDelivery & { secrets: string[]; direct: DirectTicket };

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

/** Where a direct delivery stands. */
export interface DirectTicket {
  scheduled: DeliveryScheduledV1;
  /**
   * memory: no row; writing: its row being written; written: a row, leased to this replica when the
   * delivery has a lease token (its outcome is then recorded as a claimed delivery's); done:
   * succeeded without a row.
   */
  state: 'memory' | 'writing' | 'written' | 'done';
  /**
   * follower: waits for the earlier change of its message (in `followers` of that one's ticket);
   * waiting: in its endpoint's waiting line; flight: started.
   */
  place: 'follower' | 'waiting' | 'flight';
  /** The later changes of the same message, sent one after the other once this one succeeded. */
  followers: DirectHeld[];
  /** An outcome that came back while the row was being written: recorded once it is. */
  outcome?: { outcome: AttemptOutcome; at: string };
  settle(): void;
}
