/**
 * Sending slots of one endpoint, shared by the dispatcher replicas: each replica holds a grant of
 * slots (requests it may have in flight there at once), and the grants of all replicas never add
 * up to more than the endpoint's sending cap (`sendingCap`: the concurrency, one probe, or none).
 * A replica sends from its grant without asking anyone; grants change only in that replica's own
 * claims, under the endpoint row's lock, and run out with its lease if it dies.
 *
 * Replicas that want slots of one endpoint share its cap: each aims at an equal share, and one that
 * holds more gives the rest back as its requests end, so a busy endpoint is served by every replica
 * that has deliveries for it, never by more than the cap at once.
 *
 * Pure: the dispatcher applies `slotsToGrant` in SQL (`slots_to_grant`, endpoint-state.sql.ts,
 * tested against it).
 */

/** A replica's share of the cap when `wanting` replicas (itself included) want slots. */
export function fairShare(cap: number, wanting: number): number {
  return Math.ceil(cap / Math.max(1, wanting));
}

export interface SlotRequest {
  /** What the replica asks for (slotsWanted). */
  want: number;
  /** What it may be using while it asks (slotsToKeep): never granted less, unless the cap fell. */
  keep: number;
  /** The endpoint's sending cap now. */
  cap: number;
  /** Slots the other replicas hold. */
  heldByOthers: number;
  /** Other replicas that want slots. */
  othersWanting: number;
}

/**
 * The replica's new grant: at least what it keeps, else its wish within its fair share, and never
 * more than the cap leaves after the others' grants (nor less than nothing: when the cap fell below
 * what the others hold, as when the breaker opens, theirs shrink at their own next claims).
 */
export function slotsToGrant(r: SlotRequest): number {
  const share = fairShare(r.cap, r.othersWanting + (r.want > 0 ? 1 : 0));
  return Math.max(0, Math.min(r.cap - r.heldByOthers, Math.max(r.keep, Math.min(r.want, share))));
}

/**
 * Slots a replica asks for: the whole concurrency while it has deliveries of the endpoint or the
 * endpoint has due ones, none otherwise (which hands its grant back).
 */
export function slotsWanted(heldDeliveries: number, hasDue: boolean, concurrency: number): number {
  return heldDeliveries > 0 || hasDue ? concurrency : 0;
}

/** Slots a replica uses of its grant: no more than its fair share, which it shrinks to as requests end. */
export function usableSlots(granted: number, concurrency: number, wanting: number): number {
  return Math.min(granted, fairShare(concurrency, wanting));
}

/**
 * What a replica keeps while it claims (it starts no more meanwhile): the requests it has in
 * flight, and its usable slots while it holds deliveries there; nothing once it holds none.
 */
export function slotsToKeep(inFlight: number, heldDeliveries: number, usable: number): number {
  return heldDeliveries === 0 ? 0 : Math.max(inFlight, usable);
}

/** How long a waiting line lasts an endpoint at its recent pace (see linePerSlot). */
export const LINE_WITHIN_MS = 100;
/** Deliveries waiting per slot, at least and at most (see linePerSlot). */
export const LINE_PER_SLOT = { min: 2, max: 8 };

/**
 * Deliveries a replica takes up per slot it may use: as many as the endpoint answers in
 * LINE_WITHIN_MS at its recent pace (`answerMs`, a moving average; null before its first answer),
 * between LINE_PER_SLOT.min and .max. So a request that ends is followed at once without a claim,
 * and a fast endpoint is not held to one claim per slots' worth: each claim costs PostgreSQL about
 * as much as a hundred rows (docs/adr/0033-webhook-waiting-line-at-endpoint-pace.md). A slow endpoint keeps the shortest line: deliveries beyond it would only
 * wait while other replicas could send them. At most 8 per slot: with the default concurrency
 * (32) and WEBHOOK_MAX_IN_FLIGHT (512), one endpoint's line is then half of what a sender holds.
 */
export function linePerSlot(answerMs: number | null): number {
  return answeredWithin(answerMs, { withinMs: LINE_WITHIN_MS, ...LINE_PER_SLOT });
}

/**
 * Requests one slot of an endpoint answers in `withinMs` at its recent pace (`answerMs`, null before
 * its first answer: `min`), between `min` and `max`.
 */
export function answeredWithin(answerMs: number | null, depth: { withinMs: number; min: number; max: number }): number {
  if (answerMs === null) return depth.min;
  return Math.max(depth.min, Math.min(depth.max, Math.floor(depth.withinMs / Math.max(1, answerMs))));
}

/** Deliveries a replica takes up for an endpoint: `perSlot` (linePerSlot) for each slot it may use. */
export function waitingLine(slots: number, perSlot: number = LINE_PER_SLOT.min): number {
  return perSlot * slots;
}
