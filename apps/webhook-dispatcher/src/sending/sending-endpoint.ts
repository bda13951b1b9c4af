import { answeredWithin, blockedUntil, closedBreaker, linePerSlot, sendingCap, slotsToKeep, usableSlots, waitingLine, type BreakerState } from '@seed/webhook-dispatcher-domain';
import type { ClaimedDelivery } from './claimed-delivery';
import type { EndpointReading } from './delivery-claim';
import type { BreakerReading } from './delivery-store';

/** A held delivery with the secrets that sign it. */
export type HeldDelivery = ClaimedDelivery & { secrets: string[] };

/**
 * What one replica holds and knows of one endpoint: the deliveries it holds (in flight, or waiting
 * for a free slot), its grant of the endpoint's sending slots, and the shared breaker as last read
 * from the database. The database decides both; this is the replica's copy, and errs towards
 * sending less: a grant counts only while more than a request's time of it is left, and a breaker
 * is taken as open until the latest moment the database could have meant.
 */
export class SendingEndpoint {
  inFlight = 0;
  waiting: HeldDelivery[] = [];
  /** The replica's grant: requests it may have in flight here at once. Set by claims only. */
  slots = 0;
  /** Replicas that want slots here (this one included): it uses no more than its fair share. */
  wanting = 1;
  /** This replica's want is on the endpoint's row: the next claims must deal with it (withdraw it when done). */
  wants = false;
  /** When a direct delivery last joined this endpoint's waiting line (WebhookSender keeps its slots a while after). */
  lastDirectAt = 0;
  /** Failed attempts not yet recorded: the recording answers the breaker's state after them. */
  verdictsDue = 0;
  private slotsUntil = 0;
  /** How long its attempts take of late (null: none yet). */
  private answerMs: number | null = null;
  private breaker: BreakerState = closedBreaker();
  /**
   * The version of the breaker reading in hand: an older one (a claim whose snapshot predates a
   * recording it overlapped) does not replace it.
   */
  private breakerVersion = -1;

  /** Deliveries held: in flight or waiting. */
  held(): number {
    return this.inFlight + this.waiting.length;
  }

  /**
   * Whether one more request may start now: a usable slot (of a grant that outlasts the request by
   * `marginMs`, within the fair share), within the breaker's cap (none while open, one probe while
   * half-open), and no failure waiting for its verdict (the replica does not send on while another
   * may have opened the breaker on that failure).
   */
  mayStart(now: number, concurrency: number, marginMs: number): boolean {
    if (this.verdictsDue > 0) return false;
    return this.inFlight < Math.min(this.usable(now, concurrency, marginMs), sendingCap(this.breaker, now, concurrency));
  }

  /** How many more deliveries an offer may add here: the waiting line of the usable slots, less what is held. */
  room(now: number, concurrency: number, marginMs: number): number {
    if (this.blockedUntil(now) !== null) return 0;
    return waitingLine(this.usable(now, concurrency, marginMs), this.linePerSlot()) - this.held();
  }

  /** Deliveries to hold per usable slot, at the endpoint's recent pace (linePerSlot in the domain). */
  linePerSlot(): number {
    return linePerSlot(this.answerMs);
  }

  /**
   * How many more first attempts the intake may hand over without a row (WebhookSender.directOffer):
   * per usable slot, as many requests as the endpoint answers in `withinMs` at its recent pace
   * (between `min` and `max`), less what is held; none unless the breaker is closed
   * without failures and no failure waits for its verdict (an endpoint that fails gets its
   * deliveries written down). So what the intake hands over can be sent before it is written down.
   */
  directRoom(now: number, concurrency: number, marginMs: number, depth: { withinMs: number; min: number; max: number }): number {
    if (!this.clean() || this.verdictsDue > 0) return 0;
    return this.usable(now, concurrency, marginMs) * answeredWithin(this.answerMs, depth) - this.held();
  }

  /** An attempt took `ms`: the recent pace (a moving average over about the last 16 attempts). */
  answered(ms: number): void {
    this.answerMs = this.answerMs === null ? ms : this.answerMs + (ms - this.answerMs) / 16;
  }

  /** The breaker as last read is closed with no failures counted: a success there changes nothing to record. */
  clean(): boolean {
    return this.breaker.failures === 0 && this.breaker.openUntil === null;
  }

  /** What the next claim must leave this replica (slotsToKeep): it starts no more meanwhile. */
  keep(now: number, concurrency: number, marginMs: number): number {
    return slotsToKeep(this.inFlight, this.held(), this.usable(now, concurrency, marginMs));
  }

  blockedUntil(now: number): number | null {
    return blockedUntil(this.breaker, now);
  }

  /** A claim's reading. `askedAt`/`answeredAt`: local time before and after the claim. */
  readClaim(reading: EndpointReading, askedAt: number, answeredAt: number): void {
    this.slots = reading.slots;
    this.wanting = reading.wanting;
    this.wants = reading.wants;
    this.slotsUntil = reading.slotsLeftMs === null ? 0 : askedAt + reading.slotsLeftMs;
    this.readBreaker(reading, answeredAt);
  }

  readBreaker(reading: BreakerReading, answeredAt: number): void {
    if (reading.version < this.breakerVersion) return;
    this.breakerVersion = reading.version;
    this.breaker = { failures: reading.failures, openUntil: reading.openInMs === null ? null : answeredAt + reading.openInMs };
  }

  /** Nothing held, no grant or want on the row, no verdict due: the database has all there is to know of it. */
  idle(): boolean {
    return this.held() === 0 && this.slots === 0 && !this.wants && this.verdictsDue === 0;
  }

  private usable(now: number, concurrency: number, marginMs: number): number {
    return usableSlots(this.slotsUntil - now > marginMs ? this.slots : 0, concurrency, this.wanting);
  }
}
