import type { LeaseToken } from '@seed/platform-work-queue';
import type { AttemptOutcome, DeliveryScheduledV1 } from '@seed/webhook-dispatcher-domain';

/** A delivery the sender holds: what to send where, and how often it was tried. */
export interface ClaimedDelivery {
  deliveryId: string;
  accountId: string;
  url: string;
  origin: string;
  body: string;
  attempts: number;
  /** Local time of the claim; the sender starts no request the lease may not outlast. */
  claimedAt: number;
  /**
   * The claim's fencing token (the row's `lease_token`, drawn by the claim): its outcome and its
   * hand-back are written only while the row is held under it, so a replica whose lease ran out
   * (stalled, cut off from the database) cannot undo the claim of the replica that holds it now.
   */
  leaseToken: LeaseToken;
  /** The trace of the status change (W3C traceparent), for the POST's span. */
  traceparent: string | null;
  /** A first attempt handed over by the intake without a row (WebhookSender.sendDirect). */
  direct?: DirectTicket;
}

/**
 * The sender's offer to take deliveries straight from the transaction that makes them due (a new
 * one, or the next change of a message whose earlier one ended), leased to it as a claim would:
 * `take(origin)` answers whether it has room for one more of that endpoint, and counts it. What it
 * takes reaches it only after the commit; what it declines stays due for the claim.
 */
export interface HoldOffer {
  leaseMs: number;
  take(origin: string): boolean;
}

/** The columns a claim or a hand-over returns of each row it leased. */
export interface ClaimedRow {
  delivery_id: string;
  account_id: string;
  url: string;
  origin: string;
  body: string;
  attempts: number;
  lease_token: string;
  traceparent: string | null;
}

export function claimedOf(r: ClaimedRow, claimedAt: number): ClaimedDelivery {
  return { deliveryId: r.delivery_id, accountId: r.account_id, url: r.url, origin: r.origin, body: r.body, attempts: r.attempts, claimedAt, leaseToken: r.lease_token, traceparent: r.traceparent };
}

/** The origin an endpoint is limited and broken by: scheme, host and port. */
export function originOf(url: string): string {
  return new URL(url).origin;
}

/** A direct delivery as the sender holds it (with the secrets that sign it). */
export type DirectHeld = ClaimedDelivery & { secrets: string[]; direct: DirectTicket };

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
