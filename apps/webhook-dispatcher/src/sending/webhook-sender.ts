import type { Logger } from 'pino';
import { WakeablePause } from '@seed/platform-event-store';
import { WebhookHeader } from '@seed/webhook-dispatcher-contracts';
import {
  blockedUntil,
  closedBreaker,
  onFailure,
  onNotTried,
  onSuccess,
  signatureHeader,
  tryPass,
  type AttemptOutcome,
  type BreakerPolicy,
  type BreakerState,
  type DeliveryCommand,
  type RetryPolicy,
} from '@seed/webhook-dispatcher-domain';
import type { ClaimedDelivery, DeliveryStore, HoldOffer } from './delivery-store';
import type { WebhookHttpClient } from './webhook-http-client';

export interface SenderOptions {
  /** Deliveries held at once: in flight, or waiting for their endpoint. */
  maxHeld: number;
  endpointConcurrency: number;
  leaseMs: number;
  timeoutMs: number;
  idleMs: number;
  retry: RetryPolicy;
  breaker: BreakerPolicy;
  /** How often the sweeps run (waiting deliveries left behind; held-back ones past their window). */
  sweepMs?: number;
}

/** The clear signing secrets of an account valid now (current first), or [] when it has none. */
export type SecretsOf = (accountIds: readonly string[]) => Promise<Map<string, string[]>>;

const SWEEP_MS = 10_000;
const SMALL_CLAIM = 64;
const CLAIM_GATHER_MS = 10;

interface Endpoint {
  inFlight: number;
  waiting: ClaimedDelivery[];
  breaker: BreakerState;
}

/** Deliveries the sender holds for an endpoint: in flight, or waiting for it. */
const heldBy = (endpoint: Endpoint): number => endpoint.inFlight + endpoint.waiting.length;

/**
 * Sends due deliveries. Each endpoint (origin) has its own concurrency limit, waiting line and
 * circuit breaker, and the claim skips endpoints that are broken and takes for each no more than
 * its line has room for (twice its concurrency), so a slow or dead endpoint holds only its own
 * deliveries and never the room the others need. Outcomes are recorded in batches (one transaction for
 * all outcomes of the last few milliseconds); until then a delivery stays leased, so a crash
 * re-sends only deliveries whose 2xx was not yet recorded.
 */
export class WebhookSender {
  private readonly endpoints = new Map<string, Endpoint>();
  private readonly outcomes: { delivery: ClaimedDelivery; outcome: AttemptOutcome; at: string }[] = [];
  private readonly toRelease: { deliveryId: string; dueAt: Date | null }[] = [];
  private held = 0;
  /** Where the stranded-delivery sweep goes on (it looks at a bounded slice of the queue each time). */
  private strandedCursor = '';
  private running = false;
  private loop: Promise<void> | undefined;
  private flushing: Promise<void> | undefined;
  private readonly pause = new WakeablePause();
  private readonly flushPause = new WakeablePause();

  constructor(
    private readonly store: DeliveryStore,
    private readonly http: WebhookHttpClient,
    private readonly secretsOf: SecretsOf,
    private readonly logger: Logger,
    private readonly options: SenderOptions,
  ) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
    this.flushing = this.flushLoop();
  }

  /** Stops claiming, lets requests in flight finish and records them, hands back what waited. */
  async stop(): Promise<void> {
    this.running = false;
    this.pause.wake();
    await this.loop;
    for (const endpoint of this.endpoints.values()) {
      this.toRelease.push(...endpoint.waiting.map((d) => ({ deliveryId: d.deliveryId, dueAt: null })));
      this.held -= endpoint.waiting.length;
      endpoint.waiting = [];
    }
    while (this.held > 0) await new Promise((r) => setTimeout(r, 20));
    this.flushPause.wake();
    await this.flushing;
    this.http.destroy();
  }

  /** New or re-driven deliveries are due: look now instead of at the next idle poll. */
  wake(): void {
    this.pause.wake();
  }

  private async run(): Promise<void> {
    let lastSweep = Date.now();
    while (this.running) {
      let claimed = 0;
      try {
        if (Date.now() - lastSweep > (this.options.sweepMs ?? SWEEP_MS)) {
          lastSweep = Date.now();
          const { released, next } = await this.store.releaseStranded(this.strandedCursor);
          this.strandedCursor = next;
          if (released > 0) this.logger.warn({ released }, 'deliveries waiting behind ended ones released by the sweep');
          const expired = await this.store.expireHeldBack(this.brokenOrigins(), this.options.retry.maxAgeMs);
          if (expired > 0) this.logger.info({ expired }, 'deliveries of broken endpoints past their retry window dead-lettered');
        }
        claimed = await this.claimRound();
      } catch (error) {
        this.logger.error({ err: error }, 'claiming deliveries failed; retrying');
        await this.pause.wait(1000);
        continue;
      }
      if (claimed === 0 || this.held >= this.options.maxHeld) await this.pause.wait(this.options.idleMs);
      // A small claim means deliveries trickle in: let a few milliseconds' worth gather before the
      // next one. Claiming on every wake-up took ~22 rows a claim at 2,500 deliveries/s, and each
      // claim costs about as much as taking a hundred rows.
      else if (claimed < SMALL_CLAIM) await new Promise((r) => setTimeout(r, CLAIM_GATHER_MS));
    }
  }

  private async claimRound(): Promise<number> {
    const room = this.options.maxHeld - this.held;
    if (room <= 0) return 0;
    const now = Date.now();
    const cap = this.endpointCap();
    const held = new Map([...this.endpoints].map(([origin, e]) => [origin, heldBy(e)]));
    const excluded = [...this.endpoints.entries()]
      .filter(([origin, e]) => (held.get(origin) ?? 0) >= cap || blockedUntil(e.breaker, now) !== null)
      .map(([origin]) => origin);
    const claimed = await this.store.claim(room, this.options.leaseMs, excluded, { cap, held });
    await this.adopt(claimed);
    return claimed.length;
  }

  private endpointCap(): number {
    return this.options.endpointConcurrency * 2;
  }

  /**
   * An offer for one transaction that makes deliveries due (intake, or the next change of a message
   * after its earlier one ended): room as a claim would see it now, for endpoints whose breaker is
   * closed. Deliveries it takes skip the claim: no query to find them, and nothing to scan past in
   * the due index. A quarter of the free room at most per offer, since offers of concurrent
   * transactions do not see each other's takes.
   */
  offer(): HoldOffer | undefined {
    if (!this.running) return undefined;
    let room = Math.floor((this.options.maxHeld - this.held) / 4);
    const now = Date.now();
    const cap = this.endpointCap();
    const taken = new Map<string, number>();
    return {
      leaseMs: this.options.leaseMs,
      take: (origin) => {
        if (room <= 0) return false;
        const endpoint = this.endpoints.get(origin);
        if (endpoint && blockedUntil(endpoint.breaker, now) !== null) return false;
        const count = (taken.get(origin) ?? 0) + (endpoint ? heldBy(endpoint) : 0);
        if (count >= cap) return false;
        taken.set(origin, (taken.get(origin) ?? 0) + 1);
        room--;
        return true;
      },
    };
  }

  /** Deliveries an offer took, committed: sent as claimed ones are. */
  take(held: readonly ClaimedDelivery[]): void {
    if (held.length === 0) return;
    if (!this.running) {
      // Committed while stopping: handed straight back (else their leases would hold them a minute).
      void this.store.release(held.map((d) => ({ deliveryId: d.deliveryId, dueAt: null }))).catch(() => undefined);
      return;
    }
    void this.adopt([...held]).catch((error: unknown) => this.logger.error({ err: error }, 'held deliveries not taken; their leases give them back'));
  }

  private async adopt(claimed: ClaimedDelivery[]): Promise<void> {
    if (claimed.length === 0) return;
    this.held += claimed.length;
    let secrets: Map<string, string[]>;
    try {
      secrets = await this.secretsOf([...new Set(claimed.map((d) => d.accountId))]);
    } catch (error) {
      this.held -= claimed.length;
      await this.store.release(claimed.map((d) => ({ deliveryId: d.deliveryId, dueAt: null })));
      throw error;
    }
    for (const delivery of claimed) {
      const endpoint = this.endpoint(delivery.origin);
      endpoint.waiting.push(Object.assign(delivery, { secrets: secrets.get(delivery.accountId) ?? [] }));
      this.pump(delivery.origin);
    }
  }

  /** Endpoints whose breaker is open now. */
  private brokenOrigins(): string[] {
    const now = Date.now();
    return [...this.endpoints].filter(([, e]) => blockedUntil(e.breaker, now) !== null).map(([origin]) => origin);
  }

  private endpoint(origin: string): Endpoint {
    let endpoint = this.endpoints.get(origin);
    if (!endpoint) {
      endpoint = { inFlight: 0, waiting: [], breaker: closedBreaker() };
      this.endpoints.set(origin, endpoint);
    }
    return endpoint;
  }

  /** Starts waiting deliveries of one endpoint while it has room and its breaker lets them pass. */
  private pump(origin: string): void {
    const endpoint = this.endpoint(origin);
    // Stopping: what still waits is handed back by stop().
    while (this.running && endpoint.waiting.length > 0 && endpoint.inFlight < this.options.endpointConcurrency) {
      const now = Date.now();
      const until = blockedUntil(endpoint.breaker, now);
      if (until !== null) {
        this.handBack(endpoint.waiting.splice(0), new Date(until));
        return;
      }
      const next = endpoint.waiting[0] as ClaimedDelivery & { secrets: string[] };
      // Held too long (a slow endpoint): its lease may run out mid-request and another dispatcher
      // could take it. Give it back instead of risking a second concurrent send. (Checked before
      // the breaker is asked, so that a delivery given back never takes the half-open probe.)
      if (now - next.claimedAt > this.options.leaseMs - this.options.timeoutMs - 1000) {
        this.handBack(endpoint.waiting.splice(0, 1), null);
        continue;
      }
      const pass = tryPass(endpoint.breaker, now);
      if (!pass.allowed) return; // half-open with its probe out: wait for the probe's outcome
      endpoint.breaker = pass.state;
      const delivery = endpoint.waiting.shift() as ClaimedDelivery & { secrets: string[] };
      endpoint.inFlight++;
      void this.attempt(delivery).then((outcome) => {
        endpoint.inFlight--;
        this.held--;
        if (outcome.kind === 'success') endpoint.breaker = onSuccess(endpoint.breaker);
        else if (outcome.kind === 'failure') endpoint.breaker = onFailure(endpoint.breaker, Date.now(), this.options.breaker);
        else endpoint.breaker = onNotTried(endpoint.breaker);
        this.outcomes.push({ delivery, outcome, at: new Date().toISOString() });
        this.flushPause.wake();
        this.pump(origin);
        // An endpoint with nothing held and a closed breaker is forgotten (origins come and go).
        if (endpoint.inFlight === 0 && endpoint.waiting.length === 0 && endpoint.breaker.mode === 'closed' && endpoint.breaker.failures === 0) {
          this.endpoints.delete(origin);
        }
        // Claim again only when a good part of the room is free, and this endpoint's waiting line
        // has run dry: one claim per completion would cost a query per webhook.
        const endpointHeld = heldBy(endpoint);
        if (this.held <= this.options.maxHeld / 2 && endpointHeld <= this.options.endpointConcurrency) this.pause.wake();
      });
    }
  }

  private handBack(deliveries: ClaimedDelivery[], dueAt: Date | null): void {
    this.held -= deliveries.length;
    this.toRelease.push(...deliveries.map((d) => ({ deliveryId: d.deliveryId, dueAt })));
    this.flushPause.wake();
  }

  private async attempt(delivery: ClaimedDelivery & { secrets: string[] }): Promise<AttemptOutcome> {
    if (delivery.secrets.length === 0) return { kind: 'failure', statusCode: null, timedOut: false, error: 'the account has no signing secret' };
    const t = Math.floor(Date.now() / 1000);
    try {
      return await this.http.post(delivery.url, delivery.body, {
        [WebhookHeader.Signature]: signatureHeader(delivery.secrets, t, delivery.body),
        [WebhookHeader.DeliveryId]: delivery.deliveryId,
        [WebhookHeader.Attempt]: String(delivery.attempts + 1),
      });
    } catch (error) {
      return { kind: 'failure', statusCode: null, timedOut: false, error: error instanceof Error ? error.message : String(error) };
    }
  }

  private async flushLoop(): Promise<void> {
    while (this.running || this.outcomes.length > 0 || this.toRelease.length > 0 || this.held > 0) {
      if (this.outcomes.length === 0 && this.toRelease.length === 0) {
        await this.flushPause.wait(this.options.idleMs);
        continue;
      }
      const outcomes = this.outcomes.splice(0);
      const releases = this.toRelease.splice(0);
      try {
        const at = new Date().toISOString();
        const commands: DeliveryCommand[] = outcomes.map((o) => ({
          type: 'RecordOutcome',
          deliveryId: o.delivery.deliveryId,
          outcome: o.outcome,
          at: o.at,
          random: Math.random(),
          policy: this.options.retry,
        }));
        const { held } = await this.store.decide(commands as (DeliveryCommand & { deliveryId: string })[], at, {}, this.offer());
        await this.store.release(releases);
        this.take(held);
        for (const o of outcomes) if (o.outcome.kind !== 'success') this.logFailure(o.delivery, o.outcome);
        if (outcomes.length > 0) this.pause.wake(); // the next change of those messages may be due now
      } catch (error) {
        this.logger.error({ err: error }, 'recording delivery outcomes failed; retrying');
        this.outcomes.unshift(...outcomes);
        this.toRelease.unshift(...releases);
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  }

  private logFailure(delivery: ClaimedDelivery, outcome: AttemptOutcome): void {
    // The URL is not logged: its query may carry the customer's tokens.
    this.logger.info({ deliveryId: delivery.deliveryId, origin: delivery.origin, attempt: delivery.attempts + 1, outcome }, 'webhook attempt failed');
  }
}
