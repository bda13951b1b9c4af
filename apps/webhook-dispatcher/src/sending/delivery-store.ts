import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { affectedRows, EventStore, PLAN_EACH_CALL, quoteSchema, rowsOf, type AppendMetadata, type AppendToStream, type SqlExecutor } from '@seed/platform-event-store';
import { ServiceSchema } from '@seed/platform-nest';
import type { DeadLetterView } from '@seed/webhook-dispatcher-contracts';
import {
  decideDelivery,
  deliveryStreamId,
  evolveDelivery,
  type DeliveryCommand,
  type DeliveryEvent,
  type DeliveryScheduledV1,
  type DeliveryState,
} from '@seed/webhook-dispatcher-domain';

/** A delivery the sender holds: what to send where, and how often it was tried. */
export interface ClaimedDelivery {
  deliveryId: string;
  accountId: string;
  url: string;
  origin: string;
  body: string;
  attempts: number;
  claimedAt: number;
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

/** Once a second a claim reads every endpoint's due rows from the front (see DeliveryStore.claim). */
const FULL_SCAN_EVERY_MS = 1000;
const FLOOR_MARGIN_MS = 1000;

const SYSTEM_META = (at: string): AppendMetadata => ({ correlationId: 'webhook-dispatcher', causationId: null, occurredAt: at });

/** The origin an endpoint is limited and broken by: scheme, host and port. */
export function originOf(url: string): string {
  return new URL(url).origin;
}

/**
 * Deliveries: their events (`webhook-delivery-<id>` streams) and their fold in `deliveries`,
 * which is both the admin API's read model and the sender's queue. Every write handles many
 * deliveries in one transaction and one bulk statement per table. The queue's scans (claims, the
 * pending changes of messages) are planned on each call (PLAN_EACH_CALL): their pending rows go
 * from none to thousands within seconds.
 */
@Injectable()
export class DeliveryStore {
  private readonly s: string;
  /** Per endpoint: where the next claim starts reading its due rows (see claim). */
  private readonly floors = new Map<string, string>();
  private floorsSetAt = 0;

  constructor(
    private readonly dataSource: DataSource,
    private readonly store: EventStore,
    schema: ServiceSchema,
  ) {
    this.s = quoteSchema(schema.name);
  }

  /**
   * New deliveries, due at once (inside the caller's transaction); those the offer takes are
   * inserted leased and returned, to be handed to the sender once the transaction commits.
   */
  async schedule(db: SqlExecutor, deliveries: readonly DeliveryScheduledV1[], meta: AppendMetadata, offer?: HoldOffer): Promise<ClaimedDelivery[]> {
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
      const isBlocked = blocked.has(d.deliveryId);
      return { ...d, delivery_id: d.deliveryId, account_id: d.accountId, origin, scheduled_at: d.scheduledAt, blocked: isBlocked, held: !isBlocked && offer !== undefined && offer.take(origin) };
    });
    // A held row's lease is its due time moved forward, as a claim does.
    await db.query(
      `INSERT INTO ${this.s}.deliveries (delivery_id, account_id, umid, sequence, url, origin, body, state, attempts, version,
                                         window_start, next_attempt_at, lease_until, created_at)
       SELECT delivery_id, account_id, umid, sequence, url, origin, body, 'pending', 0, 1, scheduled_at,
              CASE WHEN blocked THEN 'infinity'::timestamptz WHEN held THEN now() + make_interval(secs => $2::double precision / 1000) ELSE scheduled_at END,
              CASE WHEN held THEN now() END, scheduled_at
         FROM jsonb_to_recordset($1::jsonb) AS r(delivery_id uuid, account_id text, umid text, sequence int, url text, origin text,
              body text, scheduled_at timestamptz, blocked boolean, held boolean)`,
      [JSON.stringify(rows), offer?.leaseMs ?? 0],
    );
    return rows
      .filter((r) => r.held)
      .map((r) => ({ deliveryId: r.deliveryId, accountId: r.accountId, url: r.url, origin: r.origin, body: r.body, attempts: 0, claimedAt }));
  }

  /**
   * Every endpoint a delivery ever went to is in `delivery_endpoints`, the list the claim walks
   * (rows are never removed). DO NOTHING takes no lock: concurrent intake transactions do not wait
   * for each other here; one index probe per endpoint of the chunk.
   */
  private async ensureEndpoints(db: SqlExecutor, origins: readonly string[]): Promise<void> {
    await db.query(`INSERT INTO ${this.s}.delivery_endpoints (origin) SELECT DISTINCT unnest($1::text[]) ON CONFLICT DO NOTHING`, [[...new Set(origins)]]);
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
          RETURNING ${offer ? 'd.delivery_id, d.account_id, d.url, d.origin, d.body, d.attempts' : 'd.delivery_id'}`,
        [umids],
      ),
    );
    if (!offer) return [];
    const held = released.filter((r) => offer.take(r.origin));
    if (held.length === 0) return [];
    const claimedAt = Date.now();
    await db.query(
      `UPDATE ${this.s}.deliveries SET next_attempt_at = now() + make_interval(secs => $2::double precision / 1000), lease_until = now()
        WHERE delivery_id = ANY($1::uuid[])`,
      [held.map((r) => r.delivery_id), offer.leaseMs],
    );
    return held.map((r) => claimedOf(r, claimedAt));
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
   * Due deliveries nobody holds, leased for `leaseMs`, skipping endpoints the sender cannot take
   * more for. One message's changes reach the endpoint in order because only the earliest pending
   * change of a message is ever due: later ones wait at 'infinity' (schedule) until it ends
   * (releaseNext), so the claim needs no look at other rows. SKIP LOCKED lets replicas share the queue.
   *
   * The claim costs O(endpoints + batch), whatever the backlog, the planner's statistics or the
   * dead index entries: the endpoints come from `delivery_endpoints`; each one's due rows are read
   * from its own range of the due index (origin, next_attempt_at), from the floor this store keeps
   * for it (`deliveries_claimable`, which holds no waiting row); each endpoint with due rows gets an equal share of the batch, and none more than
   * `perEndpoint.cap` minus what the sender already holds of it (`perEndpoint.held`, by origin):
   * taking one endpoint's whole backlog would leave no room for the others while it is slow.
   *
   * The floor: every delivery that ends, and every claim, leaves a dead entry at the front of its
   * endpoint's range until vacuum removes it, and while any transaction holds the cleanup horizon
   * back (an ANALYZE of a big table, seconds) each one costs a heap visit. A claim read from the
   * very front stepped over tens of thousands of them (23,000 buffers a claim, 4x slower end to
   * end). So each claim starts where the previous one found the endpoint's first due row (less a
   * second, for transactions that commit late), and once a second a claim starts from the front,
   * for rows skipped meanwhile (locked by another transaction when the claim passed).
   */
  async claim(
    limit: number,
    leaseMs: number,
    excludedOrigins: readonly string[],
    perEndpoint: { cap: number; held: ReadonlyMap<string, number> } = { cap: limit, held: new Map() },
  ): Promise<ClaimedDelivery[]> {
    if (Date.now() - this.floorsSetAt > FULL_SCAN_EVERY_MS) {
      this.floors.clear();
      this.floorsSetAt = Date.now();
    }
    // The lease is the due time moved forward: a claimed row leaves the front of the due index, and
    // comes back by itself if its holder dies. Sorts and sequential scans are priced out for this
    // statement: the only plan left reads each endpoint's range of the due index in order. With
    // statistics from a quiet moment (27 pending rows) the planner had preferred the message-order
    // index filtered by endpoint, a scan of every pending row per endpoint (210,000 buffers a claim).
    const result = await this.dataSource.transaction(async (tx) => {
      await tx.query('SET LOCAL enable_sort = off');
      await tx.query('SET LOCAL enable_seqscan = off');
      return tx.query(
        `${PLAN_EACH_CALL} WITH live AS (
           SELECT e.origin, greatest(0, least($1::int, $4::int - COALESCE(($5::jsonb ->> e.origin)::int, 0))) AS room,
                  COALESCE(($6::jsonb ->> e.origin)::timestamptz, '-infinity') AS floor
             FROM ${this.s}.delivery_endpoints e
            WHERE NOT (e.origin = ANY($3::text[]))),
         due_now AS (
           SELECT * FROM live o
            WHERE o.room > 0
              AND (SELECT 1 FROM ${this.s}.deliveries d WHERE d.origin = o.origin AND d.state = 'pending' AND d.next_attempt_at >= o.floor AND d.next_attempt_at <= now() AND d.next_attempt_at < 'infinity'
                    ORDER BY d.next_attempt_at LIMIT 1) IS NOT NULL),
         share AS (SELECT ceil($1::numeric / greatest(1, count(*)))::int AS n FROM due_now),
         due AS (
           SELECT c.delivery_id, c.next_attempt_at FROM due_now o CROSS JOIN share CROSS JOIN LATERAL (
             SELECT d.delivery_id, d.next_attempt_at FROM ${this.s}.deliveries d
              WHERE d.origin = o.origin AND d.state = 'pending' AND d.next_attempt_at >= o.floor AND d.next_attempt_at <= now() AND d.next_attempt_at < 'infinity'
              ORDER BY d.next_attempt_at
              LIMIT least(o.room, share.n)
              FOR UPDATE SKIP LOCKED) c
            ORDER BY c.next_attempt_at
            LIMIT $1)
         UPDATE ${this.s}.deliveries d SET next_attempt_at = now() + make_interval(secs => $2::double precision / 1000), lease_until = now()
           FROM due WHERE d.delivery_id = due.delivery_id
         RETURNING d.delivery_id, d.account_id, d.url, d.origin, d.body, d.attempts, due.next_attempt_at AS was_due`,
        [limit, leaseMs, excludedOrigins, perEndpoint.cap, JSON.stringify(Object.fromEntries(perEndpoint.held)), JSON.stringify(Object.fromEntries(this.floors))],
      );
    });
    const rows = rowsOf<ClaimedRow & { was_due: Date }>(result);
    const front = new Map<string, number>();
    for (const r of rows) front.set(r.origin, Math.min(front.get(r.origin) ?? Infinity, new Date(r.was_due).getTime()));
    for (const [origin, at] of front) this.floors.set(origin, new Date(at - FLOOR_MARGIN_MS).toISOString());
    const now = Date.now();
    return rows.map((r) => claimedOf(r, now));
  }

  /** Held but not tried (endpoint busy or its breaker open, or shutting down): due again at `dueAt`. */
  async release(items: readonly { deliveryId: string; dueAt: Date | null }[]): Promise<void> {
    if (items.length === 0) return;
    await this.dataSource.query(
      `UPDATE ${this.s}.deliveries d SET lease_until = NULL, next_attempt_at = COALESCE(r.due_at, now())
         FROM jsonb_to_recordset($1::jsonb) AS r(delivery_id uuid, due_at timestamptz)
        WHERE d.delivery_id = r.delivery_id AND d.state = 'pending'`,
      [JSON.stringify(items.map((i) => ({ delivery_id: i.deliveryId, due_at: i.dueAt?.toISOString() ?? null })))],
    );
  }

  /**
   * Decides each command against its delivery's current state and writes the events and new folds,
   * all in one transaction. Returns the ids of deliveries that were decided (others: nothing to do).
   */
  async decide(commands: readonly (DeliveryCommand & { deliveryId: string })[], at: string, filter: { accountId?: string } = {}, offer?: HoldOffer): Promise<Decided> {
    if (commands.length === 0) return { decided: [], held: [] };
    return this.dataSource.transaction(async (tx) => {
      const rows: StateRow[] = await tx.query(
        `SELECT delivery_id, umid, state, attempts, version, window_start FROM ${this.s}.deliveries
          WHERE delivery_id = ANY($1::uuid[]) AND ($2::text IS NULL OR account_id = $2) ORDER BY delivery_id FOR UPDATE`,
        [[...new Set(commands.map((c) => c.deliveryId))], filter.accountId ?? null],
      );
      const byId = new Map(rows.map((r) => [r.delivery_id, r]));
      const appends: AppendToStream[] = [];
      const folds: Fold[] = [];
      // One decision per delivery and transaction (the sender never holds a delivery twice at once).
      for (const command of new Map(commands.map((c) => [c.deliveryId, c])).values()) {
        const row = byId.get(command.deliveryId);
        if (!row) continue;
        const state: DeliveryState = { status: row.state, attempts: row.attempts, windowStart: new Date(row.window_start).toISOString() };
        const events = decideDelivery(command, state);
        if (events.length === 0) continue;
        appends.push({ streamId: deliveryStreamId(command.deliveryId), expectedVersion: row.version, events });
        folds.push(foldOf(command.deliveryId, row.version + events.length, events.reduce(evolveDelivery, state), events));
      }
      if (appends.length === 0) return { decided: [], held: [] };
      await this.store.append(tx, appends, SYSTEM_META(at));
      await tx.query(
        `UPDATE ${this.s}.deliveries d
            SET state = f.state, attempts = f.attempts, version = f.version, window_start = f.window_start,
                next_attempt_at = COALESCE(f.next_attempt_at, d.next_attempt_at), lease_until = NULL,
                last_status = CASE WHEN f.touched_attempt THEN f.last_status ELSE d.last_status END,
                last_error = CASE WHEN f.touched_attempt THEN f.last_error ELSE d.last_error END,
                finished_at = f.finished_at
           FROM jsonb_to_recordset($1::jsonb) AS f(delivery_id uuid, state text, attempts int, version int, window_start timestamptz,
                next_attempt_at timestamptz, touched_attempt boolean, last_status int, last_error text, finished_at timestamptz)
          WHERE d.delivery_id = f.delivery_id`,
        [JSON.stringify(folds)],
      );
      // The next change of each message whose delivery ended may go now.
      const ended = folds.filter((f) => f.state !== 'pending').map((f) => byId.get(f.delivery_id)?.umid as string);
      const held = await this.releaseNext(tx, [...new Set(ended)], offer);
      // A re-driven change is pending again: it and every later change of its message wait behind
      // the earliest pending one, as if it had never ended (those already held finish as they are).
      const redriven = folds.filter((f) => f.state === 'pending' && byId.get(f.delivery_id)?.state !== 'pending').map((f) => byId.get(f.delivery_id)?.umid as string);
      await this.holdBehindEarlier(tx, [...new Set(redriven)]);
      return { decided: folds.map((f) => f.delivery_id), held };
    });
  }

  /**
   * Dead-letters deliveries of the given endpoints (those whose circuit breaker is open) that no
   * one holds and whose retry window has passed: such an endpoint gets one probe per cool-down, so
   * its backlog would otherwise stay pending long after the window (a change waiting behind an
   * earlier one follows once that one ended). Returns how many ended.
   */
  async expireHeldBack(origins: readonly string[], maxAgeMs: number, limit = 1000): Promise<number> {
    if (origins.length === 0) return 0;
    const rows: { delivery_id: string }[] = await this.dataSource.query(
      `${PLAN_EACH_CALL} SELECT delivery_id FROM ${this.s}.deliveries
        WHERE state = 'pending' AND origin = ANY($1::text[]) AND next_attempt_at < 'infinity' AND (lease_until IS NULL OR next_attempt_at <= now())
          AND window_start <= now() - make_interval(secs => $2::double precision / 1000)
        LIMIT $3`,
      [origins, maxAgeMs, limit],
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

interface Fold {
  delivery_id: string;
  state: string;
  attempts: number;
  version: number;
  window_start: string | null;
  next_attempt_at: string | null;
  touched_attempt: boolean;
  last_status: number | null;
  last_error: string | null;
  finished_at: string | null;
}

function foldOf(deliveryId: string, version: number, state: DeliveryState, events: DeliveryEvent[]): Fold {
  const fold: Fold = {
    delivery_id: deliveryId,
    state: state.status,
    attempts: state.attempts,
    version,
    window_start: state.windowStart,
    next_attempt_at: null,
    touched_attempt: false,
    last_status: null,
    last_error: null,
    finished_at: null,
  };
  for (const e of events) {
    switch (e.type) {
      case 'DeliveryAttemptFailed':
        Object.assign(fold, { touched_attempt: true, last_status: e.data.statusCode, last_error: e.data.error, next_attempt_at: e.data.nextAttemptAt });
        break;
      case 'DeliverySucceeded':
        Object.assign(fold, { touched_attempt: true, last_status: e.data.statusCode, last_error: null, finished_at: e.data.deliveredAt });
        break;
      case 'DeliveryDeadLettered':
        fold.finished_at = e.data.deadLetteredAt;
        if (e.data.reason === 'target-refused') Object.assign(fold, { touched_attempt: true, last_status: null, last_error: `target refused: ${e.data.detail}` });
        break;
      case 'DeliveryRedriven':
        Object.assign(fold, { next_attempt_at: e.data.redrivenAt, finished_at: null });
        break;
      case 'DeliveryScheduled':
        break;
    }
  }
  return fold;
}

/** What a decision changed: the deliveries decided, and the next changes it handed to the offer. */
export interface Decided {
  decided: string[];
  held: ClaimedDelivery[];
}

interface ClaimedRow {
  delivery_id: string;
  account_id: string;
  url: string;
  origin: string;
  body: string;
  attempts: number;
}

function claimedOf(r: ClaimedRow, claimedAt: number): ClaimedDelivery {
  return { deliveryId: r.delivery_id, accountId: r.account_id, url: r.url, origin: r.origin, body: r.body, attempts: r.attempts, claimedAt };
}
