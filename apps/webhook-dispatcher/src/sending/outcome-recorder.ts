import type { Logger } from 'pino';
import { FailureStreak } from '@seed/platform-logging';
import { outcomeRun, type AttemptOutcome, type DeliveryCommand } from '@seed/webhook-dispatcher-domain';
import type { ClaimedDelivery } from './claimed-delivery';
import type { DirectHeld } from './claimed-delivery';
import type { DeliveryPump } from './delivery-pump';
import type { BreakerReading, DeliveryStore } from './delivery-store';
import type { HeldDeliveries, Outcome, Release } from './held-deliveries';
import type { HoldOffers } from './hold-offers';

/**
 * Writes what the sender's attempts left behind, in batches: direct deliveries to write down, then
 * outcomes (one transaction for all outcomes of the last few milliseconds, with what they say of
 * their endpoints' breakers) and hand-backs. Until its outcome is recorded a delivery stays leased,
 * so a crash re-sends only deliveries whose 2xx was not yet recorded.
 */
export class OutcomeRecorder {
  private readonly writeFailures: FailureStreak;
  private readonly sentFailures: FailureStreak;
  private readonly outcomeFailures: FailureStreak;

  constructor(
    private readonly state: HeldDeliveries,
    private readonly store: DeliveryStore,
    private readonly pump: DeliveryPump,
    private readonly offers: HoldOffers,
    private readonly logger: Logger,
  ) {
    this.writeFailures = new FailureStreak(logger, 'writing direct deliveries down failed; retrying');
    this.sentFailures = new FailureStreak(logger, 'recording direct deliveries as sent failed; retrying');
    this.outcomeFailures = new FailureStreak(logger, 'recording delivery outcomes failed; retrying');
  }

  /** Runs while the sender runs, and after it stopped until everything it held is written. */
  async run(): Promise<void> {
    const state = this.state;
    while (state.running || state.outcomes.length > 0 || state.toRelease.length > 0 || state.toWrite.length > 0 || state.sent.length > 0 || state.held > 0 || state.direct > 0) {
      if (state.outcomes.length === 0 && state.toRelease.length === 0 && state.toWrite.length === 0 && state.sent.length === 0) {
        await state.flushPause.wait(state.options.idleMs);
        continue;
      }
      const writes = state.toWrite.splice(0);
      try {
        await this.writeDown(writes);
        this.writeFailures.succeeded();
      } catch (error) {
        this.writeFailures.failed(error);
        state.toWrite.unshift(...writes);
        await new Promise((r) => setTimeout(r, 500));
        continue;
      }
      // The record of direct successes goes beside the outcomes, not before them: nothing waits
      // for it, and the outcomes answer the endpoints' breakers the pump waits for.
      const sent = state.sent.splice(0);
      const outcomes = state.outcomes.splice(0);
      const releases = state.toRelease.splice(0);
      const [recordedSent, recorded] = await Promise.allSettled([sent.length > 0 ? state.options.recordSent?.(sent) : undefined, this.record(outcomes, releases)]);
      if (recordedSent.status === 'rejected') {
        this.sentFailures.failed(recordedSent.reason);
        state.sent.unshift(...sent);
      } else this.sentFailures.succeeded();
      if (recorded.status === 'fulfilled') this.outcomeFailures.succeeded();
      else {
        this.outcomeFailures.failed(recorded.reason);
        state.outcomes.unshift(...outcomes);
        state.toRelease.unshift(...releases);
      }
      if (recordedSent.status === 'rejected' || recorded.status === 'rejected') await new Promise((r) => setTimeout(r, 500));
    }
  }

  /**
   * Direct deliveries written down in one transaction, then settled: an in-flight one is leased to
   * this replica and its outcome, if it came back meanwhile, joins the next recording.
   */
  private async writeDown(writes: readonly { delivery: DirectHeld; inFlight: boolean }[]): Promise<void> {
    const state = this.state;
    if (writes.length === 0 || !state.options.writeDown) return;
    const tokens = await state.options.writeDown(
      writes.map(({ delivery, inFlight }) => ({ scheduled: delivery.direct.scheduled, traceparent: delivery.traceparent, inFlight })),
      state.options.leaseMs,
    );
    for (const { delivery, inFlight } of writes) {
      const ticket = delivery.direct;
      ticket.state = 'written';
      state.direct--;
      // Leased to this replica when written here in flight; otherwise no lease of ours ('').
      delivery.leaseToken = (inFlight && tokens.get(delivery.deliveryId)) || '';
      const ended = ticket.outcome;
      if (ended) {
        if (delivery.leaseToken !== '') state.outcomes.push({ delivery, ...ended });
        else if (ended.outcome.kind === 'failure') this.clearVerdict(delivery.origin);
      }
      ticket.settle();
    }
    state.pause.wake(); // what was written down not leased is due for a claim
  }

  private clearVerdict(origin: string): void {
    const endpoint = this.state.endpoints.get(origin);
    if (!endpoint) return;
    endpoint.verdictsDue--;
    this.pump.pump(origin);
  }

  /** One batch of outcomes (with their endpoints' breakers) and hand-backs. */
  private async record(outcomes: Outcome[], releases: Release[]): Promise<void> {
    const options = this.state.options;
    const at = new Date().toISOString();
    // Direct successes (no row) are here only for their endpoint's breaker.
    const commands: (DeliveryCommand & { deliveryId: string })[] = outcomes.filter((o) => o.delivery.direct?.state !== 'done').map((o) => ({
      type: 'RecordOutcome',
      deliveryId: o.delivery.deliveryId,
      outcome: o.outcome,
      at: o.at,
      random: Math.random(),
      policy: options.retry,
    }));
    const kinds = new Map<string, AttemptOutcome['kind'][]>();
    for (const o of outcomes) {
      const list = kinds.get(o.delivery.origin) ?? [];
      list.push(o.outcome.kind);
      kinds.set(o.delivery.origin, list);
    }
    const runs = new Map([...kinds].map(([origin, k]) => [origin, outcomeRun(k)]));
    const leaseTokens = new Map(outcomes.filter((o) => o.delivery.leaseToken !== '').map((o) => [o.delivery.deliveryId, o.delivery.leaseToken]));
    // Hand-backs first: a failure of either retries both, and a hand-back done twice changes
    // nothing (its token is gone from the row), while outcomes recorded twice would count twice on
    // their endpoint's breaker (the deliveries themselves are fenced off the second time).
    await this.store.release(releases);
    const decided = await this.store.decide(commands, at, { leaseTokens, breakers: { runs, policy: options.breaker } }, this.offers.offer());
    this.readBreakers(kinds, decided.breakers, Date.now());
    this.offers.take(decided.held);
    if (decided.fenced.length > 0) this.logger.warn({ deliveryIds: decided.fenced }, 'outcomes not recorded: their deliveries were claimed anew by another dispatcher after their lease ran out');
    for (const o of outcomes) if (o.outcome.kind !== 'success') this.logFailure(o.delivery, o.outcome);
    if (outcomes.length > 0) this.state.pause.wake(); // the next change of those messages may be due now
  }

  /** The breakers after a recorded batch, and with them the verdicts on its failures. */
  private readBreakers(kinds: ReadonlyMap<string, AttemptOutcome['kind'][]>, read: ReadonlyMap<string, BreakerReading>, answeredAt: number): void {
    for (const [origin, outcomes] of kinds) {
      const endpoint = this.state.endpoints.get(origin);
      if (!endpoint) continue;
      const reading = read.get(origin);
      if (reading) endpoint.readBreaker(reading, answeredAt);
      endpoint.verdictsDue -= outcomes.filter((k) => k === 'failure').length;
      this.pump.pump(origin);
    }
  }

  private logFailure(delivery: ClaimedDelivery, outcome: AttemptOutcome): void {
    // The URL is not logged: its query may carry the customer's tokens.
    this.logger.info({ deliveryId: delivery.deliveryId, origin: delivery.origin, attempt: delivery.attempts + 1, outcome }, 'webhook attempt failed');
  }
}
