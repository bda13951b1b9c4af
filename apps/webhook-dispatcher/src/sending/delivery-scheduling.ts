import { EventStore, PLAN_EACH_CALL, rowsOf, type AppendMetadata, type SqlExecutor } from '@seed/platform-event-store';
import { nextToken } from '@seed/platform-work-queue';
import { decideDelivery, deliveryStreamId, type DeliveryScheduledV1 } from '@seed/webhook-dispatcher-domain';
import { originOf, type ClaimedDelivery, type HoldOffer } from './claimed-delivery';
import { deliveryQueueMetrics, deliveryQueueTable } from './delivery-queue.table';

/**
 * New deliveries into the queue, inside the intake's transaction: their events, their rows (due,
 * held back behind an earlier change of their message, or leased to the sender's offer) and their
 * endpoints' rows.
 */
export class DeliveryScheduling {
  constructor(
    private readonly store: EventStore,
    /** The service's quoted schema. */
    private readonly s: string,
  ) {}

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
    // A held row's lease is its due time moved forward, as a claim does; its token is one drawn
    // for the statement, which it answers once.
    const [inserted] = rowsOf<{ lease_token: string }>(
      await db.query(
        `WITH token AS (SELECT ${nextToken(deliveryQueueTable(this.s))} AS t),
         inserted AS (
           INSERT INTO ${this.s}.deliveries (delivery_id, account_id, umid, sequence, url, origin, body, state, attempts, version,
                                             window_start, next_attempt_at, lease_until, lease_token, created_at, traceparent)
           SELECT delivery_id, account_id, umid, sequence, url, origin, body, 'pending', 0, 1, scheduled_at,
                  CASE WHEN blocked THEN 'infinity'::timestamptz WHEN held THEN now() + make_interval(secs => $2::double precision / 1000) ELSE scheduled_at END,
                  CASE WHEN held THEN now() END, CASE WHEN held THEN token.t END, scheduled_at, traceparent
             FROM jsonb_to_recordset($1::jsonb) AS r(delivery_id uuid, account_id text, umid text, sequence int, url text, origin text,
                  body text, scheduled_at timestamptz, traceparent text, blocked boolean, held boolean) CROSS JOIN token)
         SELECT t::text AS lease_token FROM token`,
        [JSON.stringify(rows), offer?.leaseMs ?? 0],
      ),
    );
    const leaseToken = inserted?.lease_token ?? '';
    deliveryQueueMetrics.claimed(rows.filter((r) => r.held).length);
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
}
