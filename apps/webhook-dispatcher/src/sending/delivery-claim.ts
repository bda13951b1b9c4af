import type { DataSource } from 'typeorm';
import { PLAN_EACH_CALL, rowsOf } from '@seed/platform-event-store';
import { leaseSet, runClaim, type WorkQueueTable } from '@seed/platform-work-queue';
import { LINE_PER_SLOT } from '@seed/webhook-dispatcher-domain';
import { claimedOf, type ClaimedDelivery, type ClaimedRow } from './claimed-delivery';
import { deliveryQueueMetrics, deliveryQueueTable } from './delivery-queue.table';

/** What a replica asks of one claim. */
export interface ClaimRequest {
  limit: number;
  leaseMs: number;
  /** Endpoints the sender can take nothing more of (its waiting line there is full). */
  excluded: readonly string[];
  /** This replica's name in the endpoints' slot grants. */
  holder: string;
  /** Requests in flight to one endpoint at once, over all replicas (WEBHOOK_ENDPOINT_CONCURRENCY). */
  concurrency: number;
  /**
   * A grant with less than this left is renewed (for a lease from now). The sender starts a
   * request only with a request's time of grant left, so this must exceed that and the time
   * between its claims (default: half the lease).
   */
  renewWithinMs?: number;
  /**
   * Per endpoint the sender deals with (it holds deliveries or slots there): the deliveries it
   * holds (none: its slots are handed back), and the slots it keeps using while it claims
   * (slotsToKeep: the claim grants no fewer, unless the breaker's cap fell), and the deliveries it
   * lines up per usable slot there (linePerSlot; LINE_PER_SLOT.min for an endpoint it does not deal with yet).
   */
  endpoints: ReadonlyMap<string, { held: number; keep: number; line?: number }>;
}

/** What the database says of an endpoint the replica deals with, as of the claim. */
export interface EndpointReading {
  origin: string;
  /** The replica's grant: requests it may have in flight there at once. */
  slots: number;
  /** How long the grant still runs, from the claim's start (null: no grant). */
  slotsLeftMs: number | null;
  /** Whether this replica's want of slots is on the row (it then holds the endpoint in its claims until it withdraws it). */
  wants: boolean;
  /** Replicas that want slots here, this one included when it does (they share the cap). */
  wanting: number;
  failures: number;
  /** When the breaker opened or opens again, from the claim's end (null: closed; < 0: half-open). */
  openInMs: number | null;
  /** The breaker's version (see BreakerReading). */
  version: number;
}

export interface Claim {
  deliveries: ClaimedDelivery[];
  endpoints: EndpointReading[];
}

/** Once a second a claim reads every endpoint's due rows from the front (see DeliveryClaimer). */
const FULL_SCAN_EVERY_MS = 1000;
const FLOOR_MARGIN_MS = 1000;

type ResultRow =
  | (ClaimedRow & { kind: 'delivery'; was_due: Date })
  | { kind: 'endpoint'; origin: string; slots: number; slots_left_ms: number | null; wants: boolean; wanting: number; failures: number; open_in_ms: number | null; version: string };

/**
 * Claims due deliveries with leases, within each endpoint's share of the sending slots, in one
 * statement. One message's changes reach the endpoint in order because only the earliest pending
 * change of a message is ever due: later ones wait at 'infinity' (schedule) until it ends
 * (releaseNext), so the claim needs no look at other rows. SKIP LOCKED lets replicas share the queue.
 *
 * Slots (endpoint-slots.ts in the domain): for each endpoint the replica deals with or could take
 * due rows of, its grant is set to its fair share of the endpoint's cap (no less than it keeps
 * using while it claims), within what the cap leaves after the other replicas' live grants, and
 * renewed for a lease when little of it is left (`renewWithinMs`). The endpoint row is locked with SKIP LOCKED and changed in
 * the same statement (a row changed since the statement's snapshot is read again under the lock),
 * so two replicas' claims never both count the same free slots, and a claim never waits: an
 * endpoint whose row is busy is left for the next claim. The rows taken for an endpoint fill the
 * waiting line of the slots the replica may use, and none at all while the breaker is open (cap 0)
 * or another replica probes it (cap 1, held by the other).
 *
 * Cost: O(endpoints + batch), whatever the backlog, the planner's statistics or the dead index
 * entries: the endpoints come from `delivery_endpoints`; each one's due rows are read from its own
 * range of the due index (origin, next_attempt_at), from the floor this claimer keeps for it
 * (`deliveries_claimable`, which holds no waiting row); each endpoint with due rows and room in
 * the replica's slots gets an equal share of the batch. The slot functions run only for the endpoints the replica deals with, and a
 * row is written only when a grant changes or is renewed.
 *
 * The floor: every delivery that ends, and every claim, leaves a dead entry at the front of its
 * endpoint's range until vacuum removes it, and while any transaction holds the cleanup horizon
 * back (an ANALYZE of a big table, seconds) each one costs a heap visit. A claim read from the
 * very front stepped over tens of thousands of them (docs/adr/0013-work-queue-claims-cost-o-batch.md).
 * So each claim starts where the previous one found the endpoint's first due row (less a
 * second, for transactions that commit late), and once a second a claim starts from the front,
 * for rows skipped meanwhile (locked by another transaction when the claim passed).
 */
export class DeliveryClaimer {
  /** Per endpoint: where the next claim starts reading its due rows. */
  private readonly floors = new Map<string, string>();
  private floorsSetAt = 0;
  private readonly q: WorkQueueTable;

  constructor(
    private readonly dataSource: DataSource,
    private readonly s: string,
  ) {
    this.q = deliveryQueueTable(s);
  }

  async claim(request: ClaimRequest): Promise<Claim> {
    if (Date.now() - this.floorsSetAt > FULL_SCAN_EVERY_MS) {
      this.floors.clear();
      this.floorsSetAt = Date.now();
    }
    // The lease is the due time moved forward: a claimed row leaves the front of the due index, and
    // comes back by itself if its holder dies. Sorts and sequential scans are priced out (runClaim):
    // the only plan left reads each endpoint's range of the due index in order. With statistics
    // from a quiet moment the planner had preferred the message-order index filtered by endpoint, a
    // scan of every pending row per endpoint (docs/adr/0013-work-queue-claims-cost-o-batch.md).
    const result = await runClaim(this.dataSource, this.statement(), [
      request.limit,
      request.leaseMs,
      request.excluded,
      request.concurrency,
      JSON.stringify(Object.fromEntries(request.endpoints)),
      JSON.stringify(Object.fromEntries(this.floors)),
      request.holder,
      request.renewWithinMs ?? request.leaseMs / 2,
    ]);
    const rows = rowsOf<ResultRow>(result);
    const claimedAt = Date.now();
    const deliveries: ClaimedDelivery[] = [];
    const endpoints: EndpointReading[] = [];
    const front = new Map<string, number>();
    for (const r of rows) {
      if (r.kind === 'endpoint') {
        endpoints.push({ origin: r.origin, slots: r.slots, slotsLeftMs: r.slots_left_ms, wants: r.wants, wanting: r.wanting, failures: r.failures, openInMs: r.open_in_ms, version: Number(r.version) });
        continue;
      }
      deliveries.push(claimedOf(r, claimedAt));
      front.set(r.origin, Math.min(front.get(r.origin) ?? Infinity, new Date(r.was_due).getTime()));
    }
    for (const [origin, at] of front) this.floors.set(origin, new Date(at - FLOOR_MARGIN_MS).toISOString());
    deliveryQueueMetrics.claimed(deliveries.length);
    return { deliveries, endpoints };
  }

  private statement(): string {
    const s = this.s;
    const dueRow = `d.state = 'pending' AND d.next_attempt_at >= o.floor AND d.next_attempt_at <= now() AND d.next_attempt_at < 'infinity'`;
    return `${PLAN_EACH_CALL} WITH known AS (
         SELECT k.key AS origin, (k.value ->> 'held')::int AS held, (k.value ->> 'keep')::int AS keep, (k.value ->> 'line')::int AS line FROM jsonb_each($5::jsonb) AS k),
       endpoints AS (
         SELECT e.origin, e.failures, e.open_until, e.breaker_version, e.slot_grants, COALESCE(k.held, 0) AS held, COALESCE(k.keep, 0) AS keep, COALESCE(k.line, ${LINE_PER_SLOT.min}) AS line,
                k.origin IS NOT NULL AS known, COALESCE(($6::jsonb ->> e.origin)::timestamptz, '-infinity') AS floor
           FROM ${s}.delivery_endpoints e LEFT JOIN known k ON k.origin = e.origin),
       -- Endpoints with due rows, but not those whose breaker is open (their range is not read).
       due_now AS (
         SELECT o.origin, o.held, o.line, o.floor FROM endpoints o
          WHERE $1::int > 0 AND NOT (o.origin = ANY($3::text[])) AND o.held < o.line * $4::int AND ${s}.sending_cap(o.open_until, $4) > 0
            AND (SELECT 1 FROM ${s}.deliveries d WHERE d.origin = o.origin AND ${dueRow} ORDER BY d.next_attempt_at LIMIT 1) IS NOT NULL),
       -- slotsWanted: the concurrency while busy with the endpoint, nothing once done with it.
       wanted AS (
         SELECT o.origin, o.failures, o.open_until, o.breaker_version, o.slot_grants, o.keep,
                CASE WHEN o.held > 0 OR d.origin IS NOT NULL THEN $4::int ELSE 0 END AS want
           FROM endpoints o LEFT JOIN due_now d ON d.origin = o.origin
          WHERE o.known OR d.origin IS NOT NULL),
       -- Rows whose grant of this holder changes, or whose renewal is due.
       to_write AS (
         SELECT e.origin FROM ${s}.delivery_endpoints e JOIN wanted w ON w.origin = e.origin
          WHERE ${s}.slots_of(e.slot_grants, $7) <> ${s}.slots_to_grant(e.slot_grants, $7, e.open_until, $4, w.want, w.keep)
             OR ${s}.want_of(e.slot_grants, $7) <> w.want
             OR (e.slot_grants -> $7 ->> 'until')::timestamptz BETWEEN now() AND now() + make_interval(secs => $8::double precision / 1000)
            FOR NO KEY UPDATE OF e SKIP LOCKED),
       granted AS (
         UPDATE ${s}.delivery_endpoints e
            SET slot_grants = ${s}.with_slots(e.slot_grants, $7, ${s}.slots_to_grant(e.slot_grants, $7, e.open_until, $4, w.want, w.keep), w.want, $2::double precision)
           FROM to_write t JOIN wanted w ON w.origin = t.origin
          WHERE e.origin = t.origin
         RETURNING e.origin, e.failures, e.open_until, e.breaker_version, e.slot_grants),
       grants AS (
         SELECT x.*, ${s}.slots_of(x.slot_grants, $7) AS slots, ${s}.want_of(x.slot_grants, $7) > 0 AS wants,
                ${s}.others_wanting(x.slot_grants, $7) + CASE WHEN ${s}.want_of(x.slot_grants, $7) > 0 THEN 1 ELSE 0 END AS wanting
           FROM (SELECT w.origin,
                        CASE WHEN g.origin IS NULL THEN w.failures ELSE g.failures END AS failures,
                        CASE WHEN g.origin IS NULL THEN w.open_until ELSE g.open_until END AS open_until,
                        CASE WHEN g.origin IS NULL THEN w.breaker_version ELSE g.breaker_version END AS breaker_version,
                        CASE WHEN g.origin IS NULL THEN w.slot_grants ELSE g.slot_grants END AS slot_grants
                   FROM wanted w LEFT JOIN granted g ON g.origin = w.origin) x),
       -- waitingLine(usableSlots, line): line per slot it may use here, less what the sender holds already.
       rooms AS (
         SELECT o.origin, o.floor, greatest(0, o.line * least(gr.slots, ceil($4::numeric / greatest(1, gr.wanting))::int) - o.held) AS room
           FROM due_now o JOIN grants gr ON gr.origin = o.origin),
       share AS (SELECT ceil($1::numeric / greatest(1, count(*)))::int AS n FROM rooms WHERE room > 0),
       due AS (
         SELECT c.delivery_id, c.next_attempt_at FROM (SELECT * FROM rooms WHERE room > 0) o CROSS JOIN share CROSS JOIN LATERAL (
           SELECT d.delivery_id, d.next_attempt_at FROM ${s}.deliveries d
            WHERE d.origin = o.origin AND ${dueRow}
            ORDER BY d.next_attempt_at
            LIMIT least(share.n, o.room)
            FOR UPDATE SKIP LOCKED) c
          ORDER BY c.next_attempt_at
          LIMIT $1),
       claimed AS (
         UPDATE ${s}.deliveries d SET ${leaseSet(this.q, '$2')}
           FROM due WHERE d.delivery_id = due.delivery_id
         RETURNING d.delivery_id, d.account_id, d.url, d.origin, d.body, d.attempts, due.next_attempt_at AS was_due, d.lease_token::text AS lease_token, d.traceparent)
     SELECT 'delivery' AS kind, c.delivery_id, c.account_id, c.url, c.origin, c.body, c.attempts, c.was_due, c.lease_token, c.traceparent,
            NULL::int AS slots, NULL::float8 AS slots_left_ms, NULL::boolean AS wants, NULL::int AS wanting, NULL::int AS failures, NULL::float8 AS open_in_ms, NULL::bigint AS version
       FROM claimed c
     UNION ALL
     SELECT 'endpoint', NULL, NULL, NULL, gr.origin, NULL, NULL, NULL, NULL, NULL,
            gr.slots,
            (extract(epoch FROM (gr.slot_grants -> $7 ->> 'until')::timestamptz - now()) * 1000)::float8,
            gr.wants,
            gr.wanting,
            gr.failures,
            (extract(epoch FROM gr.open_until - now()) * 1000)::float8,
            gr.breaker_version
       FROM grants gr`;
  }
}
