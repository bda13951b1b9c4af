import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import { WakeablePause } from '@seed/platform-event-store';
import { inSpan, SpanKind } from '@seed/platform-telemetry';
import { WebhookHeader } from '@seed/webhook-dispatcher-contracts';
import {
  outcomeRun,
  signatureHeader,
  waitingLine,
  type AttemptOutcome,
  type BreakerPolicy,
  type DeliveryCommand,
  type RetryPolicy,
} from '@seed/webhook-dispatcher-domain';
import type { ClaimedDelivery, HoldOffer } from './claimed-delivery';
import type { BreakerReading, DeliveryStore } from './delivery-store';
import { SendingEndpoint, type HeldDelivery } from './sending-endpoint';
import type { WebhookHttpClient } from './webhook-http-client';

export interface SenderOptions {
  /** Deliveries held at once: in flight, or waiting for their endpoint. */
  maxHeld: number;
  /** Requests in flight to one endpoint at once, over all replicas. */
  endpointConcurrency: number;
  leaseMs: number;
  timeoutMs: number;
  idleMs: number;
  retry: RetryPolicy;
  breaker: BreakerPolicy;
  /** How often the sweeps run (waiting deliveries left behind; held-back ones past their window). */
  sweepMs?: number;
  /** This replica's name in the endpoints' slot grants; by default host, pid and a random part. */
  holder?: string;
}

/** The clear signing secrets of an account valid now (current first), or [] when it has none. */
export type SecretsOf = (accountIds: readonly string[]) => Promise<Map<string, string[]>>;

const SWEEP_MS = 10_000;
const SMALL_CLAIM = 64;
const CLAIM_GATHER_MS = 10;
/** With no room for more deliveries, a claim still runs this often: it renews and hands back slots. */
const UPKEEP_MS = 1000;

interface Outcome {
  delivery: ClaimedDelivery;
  outcome: AttemptOutcome;
  at: string;
}

/**
 * Sends due deliveries. The limits of an endpoint (origin) hold across every replica: the claim
 * grants this replica slots of the endpoint's concurrency and takes up no more deliveries than
 * their waiting line, none while the shared breaker is open, and one probe across all replicas
 * while it is half-open (DeliveryClaimer). The replica sends from its grant without asking again;
 * each recorded failure answers the breaker's state before it sends there again. So a slow or dead
 * endpoint holds only its own deliveries and never the room the others need. Outcomes are recorded
 * in batches (one transaction for all outcomes of the last few milliseconds, with what they say of
 * their endpoints' breakers); until then a delivery stays leased, so a crash re-sends only
 * deliveries whose 2xx was not yet recorded.
 */
export class WebhookSender {
  private readonly endpoints = new Map<string, SendingEndpoint>();
  private readonly outcomes: Outcome[] = [];
  private readonly toRelease: { deliveryId: string; leaseToken: string; dueAt: Date | null }[] = [];
  private readonly holder: string;
  private held = 0;
  private lastClaimAt = 0;
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
  ) {
    this.holder = options.holder ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
    this.flushing = this.flushLoop();
  }

  /** Stops claiming, lets requests in flight finish and records them, hands back what waited and its slots. */
  async stop(): Promise<void> {
    this.running = false;
    this.pause.wake();
    await this.loop;
    for (const endpoint of this.endpoints.values()) this.handBack(endpoint.waiting.splice(0), null);
    while (this.held > 0) await new Promise((r) => setTimeout(r, 20));
    this.flushPause.wake();
    await this.flushing;
    try {
      await this.store.releaseSlots(this.holder);
    } catch (error) {
      this.logger.warn({ err: error }, 'sending slots not handed back; they run out after the lease');
    }
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
          const expired = await this.store.expireHeldBack(this.options.retry.maxAgeMs);
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
    const room = Math.max(0, this.options.maxHeld - this.held);
    const askedAt = Date.now();
    if (room === 0 && (this.endpoints.size === 0 || askedAt - this.lastClaimAt < UPKEEP_MS)) return 0;
    this.lastClaimAt = askedAt;
    const concurrency = this.options.endpointConcurrency;
    const endpoints = new Map([...this.endpoints].map(([origin, e]) => [origin, { held: e.held(), keep: e.keep(askedAt, concurrency, this.startMarginMs()) }]));
    // Slots of endpoints this replica holds nothing of go back with this claim: from now on they
    // are not used (an offer taking one meanwhile waits for the claim's answer).
    for (const endpoint of this.endpoints.values()) if (endpoint.held() === 0) endpoint.slots = 0;
    const excluded = [...endpoints].filter(([, e]) => e.held >= waitingLine(concurrency)).map(([origin]) => origin);
    // Grants are renewed early enough that a request can always start (startMarginMs) until the
    // next claim, which comes within a second (UPKEEP_MS) even when the sender is full.
    const renewWithinMs = Math.max(this.options.leaseMs / 2, this.startMarginMs() + UPKEEP_MS);
    const claim = await this.store.claimFor({ limit: room, leaseMs: this.options.leaseMs, excluded, holder: this.holder, concurrency, endpoints, renewWithinMs });
    const answeredAt = Date.now();
    for (const reading of claim.endpoints) this.endpoint(reading.origin).readClaim(reading, askedAt, answeredAt);
    await this.adopt(claim.deliveries);
    for (const reading of claim.endpoints) this.pump(reading.origin);
    return claim.deliveries.length;
  }

  /**
   * An offer for one transaction that makes deliveries due (intake, or the next change of a message
   * after its earlier one ended): room as a claim would see it now, within the waiting line of the
   * slots this replica holds (an endpoint it holds none of is left to the claim, which asks for
   * them). Deliveries it takes skip the claim: no query to find them, and nothing to scan past in
   * the due index. A quarter of the free room at most per offer, since offers of concurrent
   * transactions do not see each other's takes.
   */
  offer(): HoldOffer | undefined {
    if (!this.running) return undefined;
    let room = Math.floor((this.options.maxHeld - this.held) / 4);
    const now = Date.now();
    const taken = new Map<string, number>();
    return {
      leaseMs: this.options.leaseMs,
      take: (origin) => {
        const endpoint = this.endpoints.get(origin);
        if (room <= 0 || !endpoint) return false;
        const count = taken.get(origin) ?? 0;
        if (count >= endpoint.room(now, this.options.endpointConcurrency, this.startMarginMs())) return false;
        taken.set(origin, count + 1);
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
      void this.store.release(held.map((d) => ({ deliveryId: d.deliveryId, leaseToken: d.leaseToken, dueAt: null }))).catch(() => undefined);
      return;
    }
    void this.adopt([...held])
      .then(() => new Set(held.map((d) => d.origin)).forEach((origin) => this.pump(origin)))
      .catch((error: unknown) => this.logger.error({ err: error }, 'held deliveries not taken; their leases give them back'));
  }

  private async adopt(claimed: ClaimedDelivery[]): Promise<void> {
    if (claimed.length === 0) return;
    this.held += claimed.length;
    let secrets: Map<string, string[]>;
    try {
      secrets = await this.secretsOf([...new Set(claimed.map((d) => d.accountId))]);
    } catch (error) {
      this.held -= claimed.length;
      await this.store.release(claimed.map((d) => ({ deliveryId: d.deliveryId, leaseToken: d.leaseToken, dueAt: null })));
      throw error;
    }
    for (const delivery of claimed) this.endpoint(delivery.origin).waiting.push(Object.assign(delivery, { secrets: secrets.get(delivery.accountId) ?? [] }));
  }

  private endpoint(origin: string): SendingEndpoint {
    let endpoint = this.endpoints.get(origin);
    if (!endpoint) {
      endpoint = new SendingEndpoint();
      this.endpoints.set(origin, endpoint);
    }
    return endpoint;
  }

  /** A request is started only with this much of the grant left: it ends before the grant can. */
  private startMarginMs(): number {
    return this.options.timeoutMs + 1000;
  }

  /** Starts waiting deliveries of one endpoint while its slots, breaker and leases let them go. */
  private pump(origin: string): void {
    const endpoint = this.endpoints.get(origin);
    if (!endpoint) return;
    // Stopping: what still waits is handed back by stop().
    while (this.running && endpoint.waiting.length > 0) {
      const now = Date.now();
      const until = endpoint.blockedUntil(now);
      if (until !== null) {
        this.handBack(endpoint.waiting.splice(0), new Date(until));
        break;
      }
      const next = endpoint.waiting[0] as HeldDelivery;
      // Held too long (a slow endpoint): its lease may run out mid-request and another dispatcher
      // could take it. Give it back instead of risking a second concurrent send.
      if (now - next.claimedAt > this.options.leaseMs - this.startMarginMs()) {
        this.handBack(endpoint.waiting.splice(0, 1), null);
        continue;
      }
      if (!endpoint.mayStart(now, this.options.endpointConcurrency, this.startMarginMs())) break;
      endpoint.waiting.shift();
      endpoint.inFlight++;
      void this.attempt(next).then((outcome) => this.ended(origin, endpoint, next, outcome));
    }
    if (endpoint.idle() && this.endpoints.get(origin) === endpoint) this.endpoints.delete(origin);
  }

  private ended(origin: string, endpoint: SendingEndpoint, delivery: HeldDelivery, outcome: AttemptOutcome): void {
    endpoint.inFlight--;
    this.held--;
    if (outcome.kind === 'failure') endpoint.verdictsDue++;
    this.outcomes.push({ delivery, outcome, at: new Date().toISOString() });
    this.flushPause.wake();
    this.pump(origin);
    // Claim again only when a good part of the room is free, and this endpoint's waiting line
    // has run dry: one claim per completion would cost a query per webhook.
    if (this.held <= this.options.maxHeld / 2 && endpoint.held() <= this.options.endpointConcurrency) this.pause.wake();
  }

  private handBack(deliveries: ClaimedDelivery[], dueAt: Date | null): void {
    if (deliveries.length === 0) return;
    this.held -= deliveries.length;
    this.toRelease.push(...deliveries.map((d) => ({ deliveryId: d.deliveryId, leaseToken: d.leaseToken, dueAt })));
    this.flushPause.wake();
  }

  private async attempt(delivery: HeldDelivery): Promise<AttemptOutcome> {
    if (delivery.secrets.length === 0) return { kind: 'failure', statusCode: null, timedOut: false, error: 'the account has no signing secret' };
    const t = Math.floor(Date.now() / 1000);
    try {
      // The POST joins the trace of the status change it reports (and so of the batch's request).
      const attributes = { 'webhook.attempt': delivery.attempts + 1 };
      return await inSpan('webhook send', { kind: SpanKind.CLIENT, parent: delivery.traceparent, attributes }, () =>
        this.http.post(delivery.url, delivery.body, {
          [WebhookHeader.Signature]: signatureHeader(delivery.secrets, t, delivery.body),
          [WebhookHeader.DeliveryId]: delivery.deliveryId,
          [WebhookHeader.Attempt]: String(delivery.attempts + 1),
        }),
      );
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
        await this.record(outcomes, releases);
      } catch (error) {
        this.logger.error({ err: error }, 'recording delivery outcomes failed; retrying');
        this.outcomes.unshift(...outcomes);
        this.toRelease.unshift(...releases);
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  }

  /** One batch of outcomes (with their endpoints' breakers) and hand-backs. */
  private async record(outcomes: Outcome[], releases: typeof this.toRelease): Promise<void> {
    const at = new Date().toISOString();
    const commands: (DeliveryCommand & { deliveryId: string })[] = outcomes.map((o) => ({
      type: 'RecordOutcome',
      deliveryId: o.delivery.deliveryId,
      outcome: o.outcome,
      at: o.at,
      random: Math.random(),
      policy: this.options.retry,
    }));
    const kinds = new Map<string, AttemptOutcome['kind'][]>();
    for (const o of outcomes) {
      const list = kinds.get(o.delivery.origin) ?? [];
      list.push(o.outcome.kind);
      kinds.set(o.delivery.origin, list);
    }
    const runs = new Map([...kinds].map(([origin, k]) => [origin, outcomeRun(k)]));
    const leaseTokens = new Map(outcomes.map((o) => [o.delivery.deliveryId, o.delivery.leaseToken]));
    // Hand-backs first: a failure of either retries both, and a hand-back done twice changes
    // nothing (its token is gone from the row), while outcomes recorded twice would count twice on
    // their endpoint's breaker (the deliveries themselves are fenced off the second time).
    await this.store.release(releases);
    const decided = await this.store.decide(commands, at, { leaseTokens, breakers: { runs, policy: this.options.breaker } }, this.offer());
    this.readBreakers(kinds, decided.breakers, Date.now());
    this.take(decided.held);
    if (decided.fenced.length > 0) this.logger.warn({ deliveryIds: decided.fenced }, 'outcomes not recorded: their deliveries were claimed anew by another dispatcher after their lease ran out');
    for (const o of outcomes) if (o.outcome.kind !== 'success') this.logFailure(o.delivery, o.outcome);
    if (outcomes.length > 0) this.pause.wake(); // the next change of those messages may be due now
  }

  /** The breakers after a recorded batch, and with them the verdicts on its failures. */
  private readBreakers(kinds: ReadonlyMap<string, AttemptOutcome['kind'][]>, read: ReadonlyMap<string, BreakerReading>, answeredAt: number): void {
    for (const [origin, outcomes] of kinds) {
      const endpoint = this.endpoints.get(origin);
      if (!endpoint) continue;
      const reading = read.get(origin);
      if (reading) endpoint.readBreaker(reading, answeredAt);
      endpoint.verdictsDue -= outcomes.filter((k) => k === 'failure').length;
      this.pump(origin);
    }
  }

  private logFailure(delivery: ClaimedDelivery, outcome: AttemptOutcome): void {
    // The URL is not logged: its query may carry the customer's tokens.
    this.logger.info({ deliveryId: delivery.deliveryId, origin: delivery.origin, attempt: delivery.attempts + 1, outcome }, 'webhook attempt failed');
  }
}
