import type { Logger } from 'pino';
import { FailureStreak } from '@seed/platform-logging';
import { PeriodicSweep } from '@seed/platform-work-queue';
import { waitingLine } from '@seed/webhook-dispatcher-domain';
import type { DeliveryPump } from './delivery-pump';
import type { DeliveryStore } from './delivery-store';
import type { HeldDeliveries } from './held-deliveries';
import type { HoldOffers } from './hold-offers';
import type { SendingEndpoint } from './sending-endpoint';

const SWEEP_MS = 10_000;
const SMALL_CLAIM = 64;
const CLAIM_GATHER_MS = 10;
/** With no room for more deliveries, a claim still runs this often: it renews and hands back slots. */
const UPKEEP_MS = 1000;
/**
 * A replica keeps its slots of an endpoint this long after its last direct delivery there: the
 * intake offers direct deliveries only to endpoints it holds slots of, and a steady stream whose
 * chunks each end before the next claim would otherwise hand them back and write the next chunk down.
 */
const DIRECT_KEEP_MS = 3000;

/**
 * The sender's claims: due deliveries for the room it has, with its grants of the endpoints' slots
 * renewed and the breakers read (DeliveryClaimer); between claims, the sweeps of waiting
 * deliveries left behind and of held-back ones past their window.
 */
export class ClaimLoop {
  private lastClaimAt = 0;
  /** Where the stranded-delivery sweep goes on (it looks at a bounded slice of the queue each time). */
  private strandedCursor = '';
  private readonly failures: FailureStreak;

  constructor(
    private readonly state: HeldDeliveries,
    private readonly store: DeliveryStore,
    private readonly offers: HoldOffers,
    private readonly pump: DeliveryPump,
    private readonly logger: Logger,
  ) {
    this.failures = new FailureStreak(logger, 'claiming deliveries failed; retrying');
  }

  /** Claims until the sender stops (`state.running`); `state.pause` wakes it early. */
  async run(): Promise<void> {
    const state = this.state;
    const sweeps = this.sweeps(state.options.sweepMs ?? SWEEP_MS);
    while (state.running) {
      let claimed = 0;
      try {
        for (const sweep of sweeps) await sweep.runIfDue();
        claimed = await this.claimRound();
        this.failures.succeeded();
      } catch (error) {
        this.failures.failed(error);
        await state.pause.wait(1000);
        continue;
      }
      if (claimed === 0 || state.held >= state.options.maxHeld) await state.pause.wait(state.options.idleMs);
      // A small claim means deliveries trickle in: let a few milliseconds' worth gather before the
      // next one, since each claim costs about as much as taking many rows
      // (docs/adr/0033-webhook-waiting-line-at-endpoint-pace.md).
      else if (claimed < SMALL_CLAIM) await new Promise((r) => setTimeout(r, CLAIM_GATHER_MS));
    }
  }

  /** The queue's upkeep, run between claims: each pass looks at a bounded slice. */
  private sweeps(everyMs: number): PeriodicSweep[] {
    const state = this.state;
    const logger = this.logger;
    return [
      new PeriodicSweep({
        queue: 'webhook-deliveries',
        sweep: 'stranded',
        everyMs,
        logger,
        pass: async () => {
          const { released, next } = await this.store.releaseStranded(this.strandedCursor);
          this.strandedCursor = next;
          if (released > 0) logger.warn({ released }, 'deliveries waiting behind ended ones released by the sweep');
          return released;
        },
      }),
      new PeriodicSweep({
        queue: 'webhook-deliveries',
        sweep: 'held-back-expiry',
        everyMs,
        logger,
        pass: async () => {
          const expired = await this.store.expireHeldBack(state.options.retry.maxAgeMs);
          if (expired > 0) logger.info({ expired }, 'deliveries of broken endpoints past their retry window dead-lettered');
          return expired;
        },
      }),
    ];
  }

  private async claimRound(): Promise<number> {
    const state = this.state;
    const room = Math.max(0, state.options.maxHeld - state.held);
    const askedAt = Date.now();
    if (room === 0 && (state.endpoints.size === 0 || askedAt - this.lastClaimAt < UPKEEP_MS)) return 0;
    this.lastClaimAt = askedAt;
    const concurrency = state.options.endpointConcurrency;
    const keeping = (e: SendingEndpoint) => askedAt - e.lastDirectAt < DIRECT_KEEP_MS;
    const endpoints = new Map(
      [...state.endpoints].map(([origin, e]) => [
        origin,
        { held: keeping(e) ? Math.max(1, e.held()) : e.held(), keep: e.keep(askedAt, concurrency, state.startMarginMs()), line: e.linePerSlot() },
      ]),
    );
    // Slots of endpoints this replica holds nothing of (and sent nothing direct to of late) go back
    // with this claim: from now on they are not used (an offer taking one meanwhile waits for the claim's answer).
    for (const endpoint of state.endpoints.values()) if (endpoint.held() === 0 && !keeping(endpoint)) endpoint.slots = 0;
    const excluded = [...endpoints].filter(([, e]) => e.held >= waitingLine(concurrency, e.line)).map(([origin]) => origin);
    // Grants are renewed early enough that a request can always start (startMarginMs) until the
    // next claim, which comes within a second (UPKEEP_MS) even when the sender is full.
    const renewWithinMs = Math.max(state.options.leaseMs / 2, state.startMarginMs() + UPKEEP_MS);
    const claim = await this.store.claimFor({ limit: room, leaseMs: state.options.leaseMs, excluded, holder: state.holder, concurrency, endpoints, renewWithinMs });
    const answeredAt = Date.now();
    for (const reading of claim.endpoints) state.endpoint(reading.origin).readClaim(reading, askedAt, answeredAt);
    await this.offers.adopt(claim.deliveries);
    for (const reading of claim.endpoints) this.pump.pump(reading.origin);
    return claim.deliveries.length;
  }
}
