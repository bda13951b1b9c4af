import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { affectedRows, EventStore, PLAN_EACH_CALL, quoteSchema, rowsOf, type AppendMetadata, type AppendToStream, type SqlExecutor } from '@seed/platform-event-store';
import { ServiceSchema } from '@seed/platform-nest';
import type { DeadLetterView } from '@seed/webhook-dispatcher-contracts';
import {
  decideDelivery,
  deliveryStreamId,
  evolveDelivery,
  type BreakerPolicy,
  type DeliveryCommand,
  type DeliveryScheduledV1,
  type DeliveryState,
  type OutcomeRun,
} from '@seed/webhook-dispatcher-domain';
import { claimedOf, originOf, type ClaimedDelivery, type ClaimedRow, type HoldOffer } from './claimed-delivery';
import { DeliveryClaimer, type Claim, type ClaimRequest } from './delivery-claim';
import { foldOf, type Fold } from './delivery-fold';

export { originOf, type ClaimedDelivery, type HoldOffer } from './claimed-delivery';

const SYSTEM_META = (at: string): AppendMetadata => ({ correlationId: 'webhook-dispatcher', causationId: null, occurredAt: at });

/** How a decision is limited, and what else it records in its transaction. */
export interface DecideOptions {
  /** Only deliveries of this account (the admin API's commands). */
  accountId?: string;
  /**
   * The claims the outcomes were attempted under (delivery id -> lease token): a delivery whose row
   * no longer carries its token was claimed anew by another replica, and is left to it.
   */
  leaseTokens?: ReadonlyMap<string, string>;
  /** What the attempts say of their endpoints, recorded on the shared breakers (by origin). */
  breakers?: { runs: ReadonlyMap<string, OutcomeRun>; policy: BreakerPolicy };
}

/** An endpoint's breaker as read: open-until from the reading's end (null: closed), and its version (each change adds one). */
export interface BreakerReading {
  failures: number;
  openInMs: number | null;
  version: number;
}

/** What a decision changed: the deliveries decided, and the next changes it handed to the offer. */
export interface Decided {
  decided: string[];
  held: ClaimedDelivery[];
  /** Outcomes not recorded: their delivery is held by another replica's claim now. */
  fenced: string[];
  /** The breakers of the outcomes' endpoints, after them. */
  breakers: Map<string, BreakerReading>;
}

const nothingDecided = (fenced: string[] = []): Decided => ({ decided: [], held: [], fenced, breakers: new Map() });

/**
 * Deliveries: their events (`webhook-delivery-<id>` streams) and their fold in `deliveries`,
 * which is both the admin API's read model and the sender's queue, and the endpoints' shared state
 * (`delivery_endpoints`: breaker and sending slots). Every write handles many deliveries in one
 * transaction and one bulk statement per table. The queue's scans (claims, the pending changes of
 * messages) are planned on each call (PLAN_EACH_CALL): their pending rows go from none to
 * thousands within seconds.
 */
@Injectable()
export class DeliveryStore {
  private readonly s: string;
  private readonly claimer: DeliveryClaimer;
  /** The slot holder of claims made without a sender (tools and tests). */
  private readonly holder = `store-${randomUUID()}`;

  constructor(
    private readonly dataSource: DataSource,
    private readonly store: EventStore,
    schema: ServiceSchema,
  ) {
    this.s = quoteSchema(schema.name);
    this.claimer = new DeliveryClaimer(dataSource, this.s);
  }

  /**
   * New deliveries, due at once (inside the caller's transaction); those the offer takes are
   * inserted leased and returned, to be handed to the sender once the transaction commits. Those
   * in `inFlight` (direct deliveries written down while being sent) are leased whatever else their
   * message has pending, and returned too (with `offer`'s lease).
   */
  async schedule(
    db: SqlExecutor,
    deliveries: readonly DeliveryScheduledV1[],
    meta: AppendMetadata,
    offer?: HoldOffer,
    traces: ReadonlyMap<string, string | null> = new Map(),
    inFlight: ReadonlySet<string> = new Set(),
  ): Promise<ClaimedDelivery[]> {
    if (deliveries.length === 0) return [];
    await this.store.append(
      db,
      deliveries.map((d) => ({ streamId: deliveryStreamId(d.deliveryId), expectedVersion: 0, events: decideDelivery({ type: 'Schedule', delivery: d }, { status: 'none', attempts: 0, windowStart: null }) })),
      meta,
    );
    const blocked = await this.blockedBehindEarlier(db, deliveries);
    await this.ensureEndpoints(db, deliveries.map((d) => originOf(d.url)));
    const claimedAt = Date.now();
    const rows = deliveries.map((d) => {
      const origin = originOf(d.url);
      const sending = inFlight.has(d.deliveryId);
      const isBlocked = !sending && blocked.has(d.deliveryId);
      const traceparent = traces.get(d.deliveryId) ?? null;
      const held = sending || (!isBlocked && offer !== undefined && offer.take(origin));
      return { ...d, delivery_id: d.deliveryId, account_id: d.accountId, origin, scheduled_at: d.scheduledAt, traceparent, blocked: isBlocked, held };
    });
    // A held row's lease is its due time moved forward, as a claim does; its token is the
    // transaction's time, which the statement answers once.
    const [inserted] = rowsOf<{ lease_token: string }>(
      await db.query(
        `WITH inserted AS (
           INSERT INTO ${this.s}.deliveries (delivery_id, account_id, umid, sequence, url, origin, body, state, attempts, version,
                                             window_start, next_attempt_at, lease_until, created_at, traceparent)
           SELECT delivery_id, account_id, umid, sequence, url, origin, body, 'pending', 0, 1, scheduled_at,
                  CASE WHEN blocked THEN 'infinity'::timestamptz WHEN held THEN now() + make_interval(secs => $2::double precision / 1000) ELSE scheduled_at END,
                  CASE WHEN held THEN now() END, scheduled_at, traceparent
             FROM jsonb_to_recordset($1::jsonb) AS r(delivery_id uuid, account_id text, umid text, sequence int, url text, origin text,
                  body text, scheduled_at timestamptz, traceparent text, blocked boolean, held boolean))
         SELECT now()::text AS lease_token`,
        [JSON.stringify(rows), offer?.leaseMs ?? 0],
      ),
    );
    const leaseToken = inserted?.lease_token ?? '';
    return rows
      .filter((r) => r.held)
      .map((r) => ({ deliveryId: r.deliveryId, accountId: r.accountId, url: r.url, origin: r.origin, body: r.body, attempts: 0, claimedAt, leaseToken, traceparent: r.traceparent }));
  }

  /** The messages among `umids` with a pending delivery (read without locks: only the intake of their partition adds any). */
  async pendingMessages(db: SqlExecutor, umids: readonly string[]): Promise<Set<string>> {
    if (umids.length === 0) return new Set();
    const rows: { umid: string }[] = await db.query(
      `${PLAN_EACH_CALL} SELECT DISTINCT umid FROM ${this.s}.deliveries WHERE umid = ANY($1::text[]) AND state = 'pending'`,
      [[...new Set(umids)]],
    );
    return new Set(rows.map((r) => r.umid));
  }

  /**
   * Every endpoint a delivery ever went to is in `delivery_endpoints`, the list the claim walks
   * (rows are never removed). Only origins not there yet are inserted: an existing row is being
   * updated by claims and recorded outcomes, and an insert that conflicted with an update in
   * progress would wait for it, under the locks intake holds on the messages' pending rows.
   */
  private async ensureEndpoints(db: SqlExecutor, origins: readonly string[]): Promise<void> {
    await db.query(
      `INSERT INTO ${this.s}.delivery_endpoints (origin)
       SELECT o FROM unnest($1::text[]) AS o WHERE NOT EXISTS (SELECT 1 FROM ${this.s}.delivery_endpoints e WHERE e.origin = o)
       ON CONFLICT DO NOTHING`,
      [[...new Set(origins)]],
    );
  }

  /**
   * New deliveries that must wait for an earlier change of their message (in the same batch or
   * still pending): they are stored due at 'infinity', out of the way of every claim, until that
   * earlier one ends. Locking the pending earlier rows orders this against the transaction that
   * ends them (which releases the next): whichever commits second sees the other's rows.
   */
  private async blockedBehindEarlier(db: SqlExecutor, deliveries: readonly DeliveryScheduledV1[]): Promise<Set<string>> {
    const earliest = new Map<string, number>();
    const rows: { umid: string; sequence: number }[] = await db.query(
      `${PLAN_EACH_CALL} SELECT umid, sequence FROM ${this.s}.deliveries WHERE umid = ANY($1::text[]) AND state = 'pending' ORDER BY delivery_id FOR UPDATE`,
      [[...new Set(deliveries.map((d) => d.umid))]],
    );
    for (const r of rows) earliest.set(r.umid, Math.min(earliest.get(r.umid) ?? Infinity, r.sequence));
    const blocked = new Set<string>();
    for (const d of [...deliveries].sort((a, b) => a.sequence - b.sequence)) {
      const before = earliest.get(d.umid);
      if (before !== undefined && before < d.sequence) blocked.add(d.deliveryId);
      earliest.set(d.umid, Math.min(before ?? Infinity, d.sequence));
    }
    return blocked;
  }

  /**
   * Makes the earliest pending delivery of each message due, if it waited behind one that ended:
   * one index probe per message (a scalar subquery per umid, so no plan can read more).
   */
  private async releaseNext(db: SqlExecutor, umids: readonly string[], offer?: HoldOffer): Promise<ClaimedDelivery[]> {
    if (umids.length === 0) return [];
    const released = rowsOf<ClaimedRow>(
      await db.query(
        `UPDATE ${this.s}.deliveries d SET next_attempt_at = now()
           FROM (SELECT (SELECT p.delivery_id FROM ${this.s}.deliveries p WHERE p.umid = u AND p.state = 'pending' ORDER BY p.sequence LIMIT 1) AS delivery_id
                   FROM unnest($1::text[]) AS u) head
          WHERE d.delivery_id = head.delivery_id AND d.next_attempt_at = 'infinity'
          RETURNING ${offer ? 'd.delivery_id, d.account_id, d.url, d.origin, d.body, d.attempts, d.traceparent' : 'd.delivery_id'}`,
        [umids],
      ),
    );
    if (!offer) return [];
    const held = released.filter((r) => offer.take(r.origin));
    if (held.length === 0) return [];
    const claimedAt = Date.now();
    const [leased] = rowsOf<{ lease_token: string }>(
      await db.query(
        `WITH leased AS (
           UPDATE ${this.s}.deliveries SET next_attempt_at = now() + make_interval(secs => $2::double precision / 1000), lease_until = now()
            WHERE delivery_id = ANY($1::uuid[]))
         SELECT now()::text AS lease_token`,
        [held.map((r) => r.delivery_id), offer.leaseMs],
      ),
    );
    return held.map((r) => claimedOf({ ...r, lease_token: leased?.lease_token ?? '' }, claimedAt));
  }

  /** Puts every unheld pending change of these messages that is not their earliest pending one back to wait. */
  private async holdBehindEarlier(db: SqlExecutor, umids: readonly string[]): Promise<void> {
    if (umids.length === 0) return;
    await db.query(
      `${PLAN_EACH_CALL} UPDATE ${this.s}.deliveries d SET next_attempt_at = 'infinity'
        WHERE d.umid = ANY($1::text[]) AND d.state = 'pending' AND d.lease_until IS NULL AND d.next_attempt_at <> 'infinity'
          AND d.sequence > (SELECT p.sequence FROM ${this.s}.deliveries p WHERE p.umid = d.umid AND p.state = 'pending' ORDER BY p.sequence LIMIT 1)`,
      [umids],
    );
  }

  /**
   * Safety net: waiting deliveries whose earlier ones all ended (should releaseNext ever miss one).
   * Each call looks at the next `limit` pending rows in (umid, sequence) order after `after`, the
   * previous call's last message, and releases each message's earliest pending change if it waits
   * at 'infinity' unheld: O(limit) per call whatever the backlog, a whole pass over it every
   * (pending / limit) calls. Returns how many it released and where the next call goes on ('' when
   * the pass is complete).
   */
  async releaseStranded(after = '', limit = 1000): Promise<{ released: number; next: string }> {
    const rows: { delivery_id: string; umid: string; waiting: boolean }[] = await this.dataSource.query(
      `SELECT delivery_id, umid, next_attempt_at = 'infinity' AND lease_until IS NULL AS waiting FROM ${this.s}.deliveries
        WHERE state = 'pending' AND umid > $1 ORDER BY umid, sequence LIMIT $2`,
      [after, limit],
    );
    const complete = rows.length < limit;
    // The last message's rows may go on past the limit: it is looked at again by the next call.
    const lastUmid = rows[rows.length - 1]?.umid ?? '';
    const looked = complete ? rows : rows.filter((r) => r.umid !== lastUmid);
    const heads = looked.filter((r, i) => r.umid !== looked[i - 1]?.umid);
    const stranded = heads.filter((r) => r.waiting).map((r) => r.delivery_id);
    let released = 0;
    if (stranded.length > 0) {
      released = affectedRows(
        await this.dataSource.query(`UPDATE ${this.s}.deliveries SET next_attempt_at = now() WHERE delivery_id = ANY($1::uuid[]) AND state = 'pending' AND next_attempt_at = 'infinity'`, [
          stranded,
        ]),
      );
    }
    const next = complete ? '' : (looked[looked.length - 1]?.umid ?? lastUmid);
    return { released, next };
  }

  /**
   * Due deliveries nobody holds, leased for `leaseMs`, skipping the excluded endpoints: the claim of
   * tools and tests, as one replica that holds nothing yet, with `limit` as each endpoint's
   * concurrency. The sender claims with `claimFor`.
   */
  async claim(limit: number, leaseMs: number, excludedOrigins: readonly string[] = []): Promise<ClaimedDelivery[]> {
    return (await this.claimFor({ limit, leaseMs, excluded: excludedOrigins, holder: this.holder, concurrency: limit, endpoints: new Map() })).deliveries;
  }

  /** A sender's claim: deliveries, and its sending slots and the breakers of its endpoints (DeliveryClaimer). */
  claimFor(request: ClaimRequest): Promise<Claim> {
    return this.claimer.claim(request);
  }

  /**
   * Held but not tried (endpoint busy or its breaker open, or shutting down): due again at `dueAt`.
   * Only rows still held under the given claim: one claimed anew by another replica stays with it.
   */
  async release(items: readonly { deliveryId: string; leaseToken: string; dueAt: Date | null }[]): Promise<void> {
    if (items.length === 0) return;
    await this.dataSource.query(
      `UPDATE ${this.s}.deliveries d SET lease_until = NULL, next_attempt_at = COALESCE(r.due_at, now())
         FROM jsonb_to_recordset($1::jsonb) AS r(delivery_id uuid, lease_token timestamptz, due_at timestamptz)
        WHERE d.delivery_id = r.delivery_id AND d.state = 'pending' AND d.lease_until = r.lease_token`,
      [JSON.stringify(items.map((i) => ({ delivery_id: i.deliveryId, lease_token: i.leaseToken, due_at: i.dueAt?.toISOString() ?? null })))],
    );
  }

  /** Hands back every sending slot `holder` holds (a sender that stops), so other replicas need not wait for them to run out. */
  async releaseSlots(holder: string): Promise<void> {
    await this.dataSource.query(
      `WITH mine AS (SELECT origin FROM ${this.s}.delivery_endpoints WHERE slot_grants -> $1 IS NOT NULL ORDER BY origin FOR NO KEY UPDATE)
       UPDATE ${this.s}.delivery_endpoints e SET slot_grants = e.slot_grants - $1 FROM mine WHERE e.origin = mine.origin`,
      [holder],
    );
  }

  /**
   * Decides each command against its delivery's current state and writes the events and new folds,
   * all in one transaction, with what the attempts say of their endpoints' breakers. Returns the
   * ids of deliveries that were decided (others: nothing to do, or fenced off).
   *
   * The breakers are changed in the statement that writes the folds (no round trip of their own):
   * the rows that change are locked in origin order, so replicas recording outcomes for the same
   * endpoints at once wait for each other in one order, and each applies its run to the other's
   * result (`breaker_after`, the domain's afterOutcomes). A run of successes on a closed breaker
   * without failures writes nothing.
   */
  async decide(commands: readonly (DeliveryCommand & { deliveryId: string })[], at: string, options: DecideOptions = {}, offer?: HoldOffer): Promise<Decided> {
    const runs = [...(options.breakers?.runs ?? [])].filter(([, r]) => r.reset || r.failures > 0).map(([origin, r]) => ({ origin, reset: r.reset, failures: r.failures }));
    if (commands.length === 0 && runs.length === 0) return nothingDecided();
    return this.dataSource.transaction(async (tx) => {
      const rows: StateRow[] =
        commands.length === 0
          ? []
          : await tx.query(
              `SELECT d.delivery_id, d.umid, d.state, d.attempts, d.version, d.window_start,
                      (t.token IS NOT NULL AND d.lease_until IS DISTINCT FROM t.token::timestamptz) AS fenced
                 FROM ${this.s}.deliveries d LEFT JOIN jsonb_each_text($3::jsonb) AS t(delivery_id, token) ON t.delivery_id::uuid = d.delivery_id
                WHERE d.delivery_id = ANY($1::uuid[]) AND ($2::text IS NULL OR d.account_id = $2) ORDER BY d.delivery_id FOR UPDATE OF d`,
              [[...new Set(commands.map((c) => c.deliveryId))], options.accountId ?? null, JSON.stringify(Object.fromEntries(options.leaseTokens ?? []))],
            );
      const byId = new Map(rows.map((r) => [r.delivery_id, r]));
      const appends: AppendToStream[] = [];
      const folds: Fold[] = [];
      const fenced: string[] = [];
      // One decision per delivery and transaction (the sender never holds a delivery twice at once).
      for (const command of new Map(commands.map((c) => [c.deliveryId, c])).values()) {
        const row = byId.get(command.deliveryId);
        if (!row) continue;
        if (row.fenced) {
          fenced.push(row.delivery_id);
          continue;
        }
        const state: DeliveryState = { status: row.state, attempts: row.attempts, windowStart: new Date(row.window_start).toISOString() };
        const events = decideDelivery(command, state);
        if (events.length === 0) continue;
        appends.push({ streamId: deliveryStreamId(command.deliveryId), expectedVersion: row.version, events });
        folds.push(foldOf(command.deliveryId, row.version + events.length, events.reduce(evolveDelivery, state), events));
      }
      if (appends.length === 0 && runs.length === 0) return nothingDecided(fenced);
      if (appends.length > 0) await this.store.append(tx, appends, SYSTEM_META(at));
      const breakers = await this.writeFoldsAndBreakers(tx, folds, runs, options.breakers?.policy);
      if (folds.length === 0) return { ...nothingDecided(fenced), breakers };
      // The next change of each message whose delivery ended may go now.
      const ended = folds.filter((f) => f.state !== 'pending').map((f) => byId.get(f.delivery_id)?.umid as string);
      const held = await this.releaseNext(tx, [...new Set(ended)], offer);
      // A re-driven change is pending again: it and every later change of its message wait behind
      // the earliest pending one, as if it had never ended (those already held finish as they are).
      const redriven = folds.filter((f) => f.state === 'pending' && byId.get(f.delivery_id)?.state !== 'pending').map((f) => byId.get(f.delivery_id)?.umid as string);
      await this.holdBehindEarlier(tx, [...new Set(redriven)]);
      return { decided: folds.map((f) => f.delivery_id), held, fenced, breakers };
    });
  }

  private async writeFoldsAndBreakers(
    tx: SqlExecutor,
    folds: readonly Fold[],
    runs: readonly { origin: string; reset: boolean; failures: number }[],
    policy: BreakerPolicy | undefined,
  ): Promise<Map<string, BreakerReading>> {
    const read = rowsOf<{ origin: string; failures: number; open_in_ms: number | null; version: string }>(
      await tx.query(
        `WITH runs AS (SELECT * FROM jsonb_to_recordset($2::jsonb) AS r(origin text, reset boolean, failures int)),
         touched AS (
           SELECT e.origin FROM ${this.s}.delivery_endpoints e JOIN runs r ON r.origin = e.origin
            WHERE r.failures > 0 OR (r.reset AND (e.failures > 0 OR e.open_until IS NOT NULL))
            ORDER BY e.origin FOR NO KEY UPDATE OF e),
         changed AS (
           UPDATE ${this.s}.delivery_endpoints e
              SET (failures, open_until) = (SELECT b.new_failures, b.new_open_until FROM ${this.s}.breaker_after(e.failures, e.open_until, r.reset, r.failures, $3::int, $4::double precision) b),
                  breaker_version = e.breaker_version + 1
             FROM touched t JOIN runs r ON r.origin = t.origin
            WHERE e.origin = t.origin
           RETURNING e.origin, e.failures, (extract(epoch FROM e.open_until - now()) * 1000)::float8 AS open_in_ms, e.breaker_version AS version),
         folded AS (
           UPDATE ${this.s}.deliveries d
              SET state = f.state, attempts = f.attempts, version = f.version, window_start = f.window_start,
                  next_attempt_at = COALESCE(f.next_attempt_at, d.next_attempt_at), lease_until = NULL,
                  last_status = CASE WHEN f.touched_attempt THEN f.last_status ELSE d.last_status END,
                  last_error = CASE WHEN f.touched_attempt THEN f.last_error ELSE d.last_error END,
                  finished_at = f.finished_at
             FROM jsonb_to_recordset($1::jsonb) AS f(delivery_id uuid, state text, attempts int, version int, window_start timestamptz,
                  next_attempt_at timestamptz, touched_attempt boolean, last_status int, last_error text, finished_at timestamptz)
            WHERE d.delivery_id = f.delivery_id)
         SELECT origin, failures, open_in_ms, version FROM changed
         UNION ALL
         SELECT e.origin, e.failures, (extract(epoch FROM e.open_until - now()) * 1000)::float8, e.breaker_version
           FROM runs r JOIN ${this.s}.delivery_endpoints e ON e.origin = r.origin
          WHERE r.origin NOT IN (SELECT origin FROM changed)`,
        [JSON.stringify(folds), JSON.stringify(runs), policy?.failureThreshold ?? 1, policy?.cooldownMs ?? 0],
      ),
    );
    return new Map(read.map((c) => [c.origin, { failures: c.failures, openInMs: c.open_in_ms, version: Number(c.version) }]));
  }

  /**
   * Dead-letters deliveries of endpoints whose circuit breaker is open (or half-open, probing) that
   * no one holds and whose retry window has passed: such an endpoint gets one probe per cool-down,
   * so its backlog would otherwise stay pending long after the window (a change waiting behind an
   * earlier one follows once that one ended). The breakers are the shared ones: any replica's
   * sweep ends them. Returns how many ended.
   */
  async expireHeldBack(maxAgeMs: number, limit = 1000): Promise<number> {
    const broken: { origin: string }[] = await this.dataSource.query(`SELECT origin FROM ${this.s}.delivery_endpoints WHERE open_until IS NOT NULL`);
    if (broken.length === 0) return 0;
    const rows: { delivery_id: string }[] = await this.dataSource.query(
      `${PLAN_EACH_CALL} SELECT delivery_id FROM ${this.s}.deliveries
        WHERE state = 'pending' AND origin = ANY($1::text[]) AND next_attempt_at < 'infinity' AND (lease_until IS NULL OR next_attempt_at <= now())
          AND window_start <= now() - make_interval(secs => $2::double precision / 1000)
        LIMIT $3`,
      [broken.map((b) => b.origin), maxAgeMs, limit],
    );
    const at = new Date().toISOString();
    const detail = 'circuit breaker open: not tried again within the retry window';
    return (await this.decide(rows.map((r) => ({ type: 'Expire' as const, deliveryId: r.delivery_id, at, maxAgeMs, detail })), at)).decided.length;
  }

  async deadLetters(accountId: string, limit = 1000): Promise<DeadLetterView[]> {
    const rows: DeadRow[] = await this.dataSource.query(
      `SELECT delivery_id, umid, url, state, attempts, last_status, last_error, created_at, finished_at, body
         FROM ${this.s}.deliveries WHERE account_id = $1 AND state = 'dead' ORDER BY finished_at, delivery_id LIMIT $2`,
      [accountId, limit],
    );
    return rows.map((r) => ({
      deliveryId: r.delivery_id,
      umid: r.umid,
      url: r.url,
      state: r.state,
      attempts: r.attempts,
      lastStatus: r.last_status,
      lastError: r.last_error,
      createdAt: new Date(r.created_at).toISOString(),
      deadLetteredAt: new Date(r.finished_at).toISOString(),
      body: JSON.parse(r.body) as unknown,
    }));
  }

  async deadLetterIds(accountId: string): Promise<string[]> {
    const rows: { delivery_id: string }[] = await this.dataSource.query(
      `SELECT delivery_id FROM ${this.s}.deliveries WHERE account_id = $1 AND state = 'dead'`,
      [accountId],
    );
    return rows.map((r) => r.delivery_id);
  }
}

interface StateRow {
  delivery_id: string;
  umid: string;
  state: 'pending' | 'delivered' | 'dead';
  attempts: number;
  version: number;
  window_start: Date;
  /** The outcome's claim is no longer the row's (see DecideOptions.leaseTokens). */
  fenced: boolean;
}

interface DeadRow {
  delivery_id: string;
  umid: string;
  url: string;
  state: string;
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  created_at: Date;
  finished_at: Date;
  body: string;
}
