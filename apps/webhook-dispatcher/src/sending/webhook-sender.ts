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
import type { DirectDelivery, DirectHeld, DirectOffer, DirectTicket, WriteDown } from './direct-delivery';
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
  /** Writes direct deliveries down (the intake's); without it the sender takes none (directOffer). */
  writeDown?: WriteDown;
  /** How long direct deliveries may go unsettled before what is left of them is written down. */
  directWaitMs?: number;
}

/** The clear signing secrets of an account valid now (current first), or [] when it has none. */
export type SecretsOf = (accountIds: readonly string[]) => Promise<Map<string, string[]>>;

const SWEEP_MS = 10_000;
const SMALL_CLAIM = 64;
const CLAIM_GATHER_MS = 10;
/** With no room for more deliveries, a claim still runs this often: it renews and hands back slots. */
const UPKEEP_MS = 1000;
/** Direct deliveries held at once, as a multiple of WEBHOOK_MAX_IN_FLIGHT (they hold no row, and no other replica waits for them). */
const DIRECT_PER_HELD = 16;
const DIRECT_WAIT_MS = 2000;
/**
 * Direct deliveries an endpoint may hold per usable slot: what it answers in a quarter of the
 * wait at its recent pace, within these bounds (the lower one until it has answered at all).
 */
const DIRECT_DEPTH = { min: 8, max: 128 };
/**
 * A replica keeps its slots of an endpoint this long after its last direct delivery there: the
 * intake offers direct deliveries only to endpoints it holds slots of, and a steady stream whose
 * chunks each end before the next claim would otherwise hand them back and write the next chunk down.
 */
const DIRECT_KEEP_MS = 3000;
/**
 * Status events handed over for direct delivery that are remembered (DirectOffer.handedOver): a
 * repeat of one of them on the topic is dropped. The relay repeats a batch when its checkpoint did
 * not commit after the send (a PostgreSQL restart): seconds later, well within the last 100,000.
 */
const RECENT_DIRECT = 100_000;

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
  /** Direct deliveries to write down: failed, not settled in time, or handed back. */
  private readonly toWrite: { delivery: DirectHeld; inFlight: boolean }[] = [];
  private readonly holder: string;
  private held = 0;
  /** Direct deliveries not settled yet (also counted in `held` while waiting or in flight). */
  private direct = 0;
  /** Source event ids of the last RECENT_DIRECT direct deliveries, oldest first. */
  private readonly recentDirect = new Set<string>();
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
    const keeping = (e: SendingEndpoint) => askedAt - e.lastDirectAt < DIRECT_KEEP_MS;
    const endpoints = new Map(
      [...this.endpoints].map(([origin, e]) => [
        origin,
        { held: keeping(e) ? Math.max(1, e.held()) : e.held(), keep: e.keep(askedAt, concurrency, this.startMarginMs()), line: e.linePerSlot() },
      ]),
    );
    // Slots of endpoints this replica holds nothing of (and sent nothing direct to of late) go back
    // with this claim: from now on they are not used (an offer taking one meanwhile waits for the claim's answer).
    for (const endpoint of this.endpoints.values()) if (endpoint.held() === 0 && !keeping(endpoint)) endpoint.slots = 0;
    const excluded = [...endpoints].filter(([, e]) => e.held >= waitingLine(concurrency, e.line)).map(([origin]) => origin);
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

  /**
   * An offer of first attempts without a row, for the intake's transaction: an endpoint this
   * replica holds usable slots of, with a clean breaker, up to DIRECT_DEPTH per slot. Undefined
   * when the sender cannot write deliveries down (then everything is scheduled).
   */
  directOffer(): DirectOffer | undefined {
    if (!this.running || !this.options.writeDown) return undefined;
    let room = this.options.maxHeld * DIRECT_PER_HELD - this.direct;
    const now = Date.now();
    const taken = new Map<string, number>();
    const depth = { ...DIRECT_DEPTH, withinMs: (this.options.directWaitMs ?? DIRECT_WAIT_MS) / 4 };
    const roomAt = (origin: string) => this.endpoints.get(origin)?.directRoom(now, this.options.endpointConcurrency, this.startMarginMs(), depth) ?? 0;
    return {
      handedOver: (eventId) => this.recentDirect.has(eventId),
      open: (origin) => room > 0 && roomAt(origin) > (taken.get(origin) ?? 0),
      take: (origin) => {
        const count = taken.get(origin) ?? 0;
        if (room <= 0 || count >= roomAt(origin)) return false;
        taken.set(origin, count + 1);
        room--;
        return true;
      },
    };
  }

  /**
   * First attempts of status changes the intake did not write down. Resolves once each one has
   * succeeded or has been written down (failed, not settled within `directWaitMs`, or handed back
   * on stop): only then may the intake commit their events' offsets. A success writes nothing; a
   * written-down delivery goes on as a scheduled one (retries, dead letters), an in-flight one
   * leased to this replica so that its outcome is recorded as a claimed delivery's. The changes of
   * one message (in `items`' order) go one after the other: a later one is sent once the earlier
   * one succeeded, and written down behind it when it did not.
   */
  async sendDirect(items: readonly DirectDelivery[]): Promise<void> {
    if (items.length === 0) return;
    const settled: Promise<void>[] = [];
    const claimedAt = Date.now();
    const deliveries: DirectHeld[] = items.map(({ scheduled, origin, traceparent }) => {
      let settle: () => void = () => undefined;
      settled.push(new Promise<void>((resolve) => (settle = resolve)));
      const direct: DirectTicket = { scheduled, state: 'memory', place: 'follower', followers: [], settle };
      const { deliveryId, accountId, url, body } = scheduled;
      return { deliveryId, accountId, url, origin, body, attempts: 0, claimedAt, leaseToken: '', traceparent, direct, secrets: [] };
    });
    const heads = new Map<string, DirectHeld>();
    for (const d of deliveries) {
      const head = heads.get(d.direct.scheduled.umid);
      if (head) head.direct.followers.push(d);
      else heads.set(d.direct.scheduled.umid, d);
    }
    this.direct += deliveries.length;
    for (const d of deliveries) this.recentDirect.add(d.direct.scheduled.sourceEventId);
    for (const eventId of this.recentDirect) {
      if (this.recentDirect.size <= RECENT_DIRECT) break;
      this.recentDirect.delete(eventId);
    }
    let secrets: Map<string, string[]> | undefined;
    try {
      secrets = await this.secretsOf([...new Set(deliveries.map((d) => d.accountId))]);
    } catch (error) {
      this.logger.warn({ err: error }, 'signing secrets not read; direct deliveries written down');
    }
    if (!secrets || !this.running) for (const head of heads.values()) this.writeDownChain(head, false);
    else {
      for (const d of deliveries) d.secrets = secrets.get(d.accountId) ?? [];
      for (const head of heads.values()) this.line(head);
      new Set([...heads.values()].map((d) => d.origin)).forEach((origin) => this.pump(origin));
    }
    this.flushPause.wake();
    const late = setTimeout(() => this.writeDownUnsettled(deliveries), this.options.directWaitMs ?? DIRECT_WAIT_MS);
    try {
      await Promise.all(settled);
    } finally {
      clearTimeout(late);
    }
  }

  /** A direct delivery joins its endpoint's waiting line (the caller pumps it). */
  private line(delivery: DirectHeld): void {
    delivery.direct.place = 'waiting';
    this.held++;
    const endpoint = this.endpoint(delivery.origin);
    endpoint.lastDirectAt = Date.now();
    endpoint.waiting.push(delivery);
  }

  /** A direct delivery and the later changes of its message waiting for it, to be written down (it `inFlight` or not started). */
  private writeDownChain(delivery: DirectHeld, inFlight: boolean): void {
    delivery.direct.state = 'writing';
    this.toWrite.push({ delivery, inFlight });
    for (const follower of delivery.direct.followers.splice(0)) {
      follower.direct.state = 'writing';
      this.toWrite.push({ delivery: follower, inFlight: false });
    }
    this.flushPause.wake();
  }

  /** Direct deliveries still without an outcome: written down, so that the intake may go on (one slow endpoint never holds it up). */
  private writeDownUnsettled(deliveries: readonly DirectHeld[]): void {
    const unsettled = deliveries.filter((d) => d.direct.state === 'memory');
    const waiting = new Set(unsettled.filter((d) => d.direct.place === 'waiting'));
    for (const origin of new Set([...waiting].map((d) => d.origin))) {
      const endpoint = this.endpoints.get(origin);
      if (endpoint) endpoint.waiting = endpoint.waiting.filter((d) => !waiting.has(d as DirectHeld));
    }
    this.held -= waiting.size;
    // Every link of a chain is among the unsettled ones: each is written down on its own here
    // (one transaction for all, which orders a message's changes by their sequence).
    for (const d of unsettled) {
      d.direct.followers = [];
      this.writeDownChain(d, d.direct.place === 'flight');
    }
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
      if (next.direct) next.direct.place = 'flight';
      endpoint.inFlight++;
      const startedAt = Date.now();
      void this.attempt(next).then((outcome) => {
        endpoint.answered(Date.now() - startedAt);
        this.ended(origin, endpoint, next, outcome);
      });
    }
    if (endpoint.idle() && this.endpoints.get(origin) === endpoint) this.endpoints.delete(origin);
  }

  private ended(origin: string, endpoint: SendingEndpoint, delivery: HeldDelivery, outcome: AttemptOutcome): void {
    endpoint.inFlight--;
    this.held--;
    if (outcome.kind === 'failure') endpoint.verdictsDue++;
    const ticket = delivery.direct;
    const at = new Date().toISOString();
    if (ticket && ticket.state !== 'written') this.directEnded(endpoint, delivery as DirectHeld, { outcome, at });
    else if (ticket && delivery.leaseToken === '') {
      // Written down by another replica first (no lease of ours): the outcome is that replica's to record.
      if (outcome.kind === 'failure') endpoint.verdictsDue--;
    } else this.outcomes.push({ delivery, outcome, at });
    this.flushPause.wake();
    this.pump(origin);
    // Claim again only when a good part of the room is free, and this endpoint's waiting line is
    // down to a slots' worth: one claim per completion would cost a query per webhook, and earlier
    // wake-ups only claimed for endpoints fed by the intake's direct deliveries.
    if (this.held <= this.options.maxHeld / 2 && endpoint.held() <= this.options.endpointConcurrency) this.pause.wake();
  }

  /**
   * A direct delivery's attempt ended before it was written down: a success is settled without a
   * word to the database (unless its endpoint's breaker has failures to clear) and lets the next
   * change of its message go; a failure is written down leased to this replica, then recorded,
   * with the later changes behind it. One ended while being written down is recorded once it is.
   */
  private directEnded(endpoint: SendingEndpoint, delivery: DirectHeld, ended: { outcome: AttemptOutcome; at: string }): void {
    const ticket = delivery.direct;
    if (ticket.state === 'writing') {
      ticket.outcome = ended;
      return;
    }
    if (ended.outcome.kind !== 'success') {
      ticket.outcome = ended;
      this.writeDownChain(delivery, true);
      return;
    }
    ticket.state = 'done';
    this.direct--;
    ticket.settle();
    // Counted on the shared breaker only when it has something to clear (a delivery with no row
    // is skipped by the recording; its success still resets the breaker).
    if (!endpoint.clean()) this.outcomes.push({ delivery, ...ended });
    const [next, ...rest] = ticket.followers.splice(0);
    if (!next) return;
    next.direct.followers = rest;
    if (!this.running) this.writeDownChain(next, false);
    else {
      this.line(next);
      if (next.origin !== delivery.origin) this.pump(next.origin);
    }
  }

  private handBack(deliveries: ClaimedDelivery[], dueAt: Date | null): void {
    if (deliveries.length === 0) return;
    this.held -= deliveries.length;
    for (const d of deliveries) {
      // A direct delivery has no row to hand back: it is written down, due for any claim.
      if (d.direct?.state === 'memory') this.writeDownChain(d as DirectHeld, false);
      else this.toRelease.push({ deliveryId: d.deliveryId, leaseToken: d.leaseToken, dueAt });
    }
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
    while (this.running || this.outcomes.length > 0 || this.toRelease.length > 0 || this.toWrite.length > 0 || this.held > 0 || this.direct > 0) {
      if (this.outcomes.length === 0 && this.toRelease.length === 0 && this.toWrite.length === 0) {
        await this.flushPause.wait(this.options.idleMs);
        continue;
      }
      const writes = this.toWrite.splice(0);
      try {
        await this.writeDown(writes);
      } catch (error) {
        this.logger.error({ err: error }, 'writing direct deliveries down failed; retrying');
        this.toWrite.unshift(...writes);
        await new Promise((r) => setTimeout(r, 500));
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

  /**
   * Direct deliveries written down in one transaction, then settled: an in-flight one is leased to
   * this replica and its outcome, if it came back meanwhile, joins the next recording.
   */
  private async writeDown(writes: readonly { delivery: DirectHeld; inFlight: boolean }[]): Promise<void> {
    if (writes.length === 0 || !this.options.writeDown) return;
    const tokens = await this.options.writeDown(
      writes.map(({ delivery, inFlight }) => ({ scheduled: delivery.direct.scheduled, traceparent: delivery.traceparent, inFlight })),
      this.options.leaseMs,
    );
    for (const { delivery, inFlight } of writes) {
      const ticket = delivery.direct;
      ticket.state = 'written';
      this.direct--;
      // Leased to this replica when written here in flight; otherwise no lease of ours ('').
      delivery.leaseToken = (inFlight && tokens.get(delivery.deliveryId)) || '';
      const ended = ticket.outcome;
      if (ended) {
        if (delivery.leaseToken !== '') this.outcomes.push({ delivery, ...ended });
        else if (ended.outcome.kind === 'failure') this.clearVerdict(delivery.origin);
      }
      ticket.settle();
    }
    this.pause.wake(); // what was written down not leased is due for a claim
  }

  private clearVerdict(origin: string): void {
    const endpoint = this.endpoints.get(origin);
    if (!endpoint) return;
    endpoint.verdictsDue--;
    this.pump(origin);
  }

  /** One batch of outcomes (with their endpoints' breakers) and hand-backs. */
  private async record(outcomes: Outcome[], releases: typeof this.toRelease): Promise<void> {
    const at = new Date().toISOString();
    // Direct successes (no row) are here only for their endpoint's breaker.
    const commands: (DeliveryCommand & { deliveryId: string })[] = outcomes.filter((o) => o.delivery.direct?.state !== 'done').map((o) => ({
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
    const leaseTokens = new Map(outcomes.filter((o) => o.delivery.leaseToken !== '').map((o) => [o.delivery.deliveryId, o.delivery.leaseToken]));
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
