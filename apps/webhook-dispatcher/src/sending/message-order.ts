import { DataSource } from 'typeorm';
import { affectedRows, PLAN_EACH_CALL, rowsOf, type SqlExecutor } from '@seed/platform-event-store';
import { leaseSet } from '@seed/platform-work-queue';
import { claimedOf, type ClaimedDelivery, type ClaimedRow, type HoldOffer } from './claimed-delivery';
import { deliveryQueueMetrics, deliveryQueueTable } from './delivery-queue.table';

/**
 * The changes of one message are delivered one after the other: a later one waits at 'infinity'
 * until the earlier ones ended. This releases the next one when one ends, holds the later ones
 * back again when an ended one is re-driven, and sweeps for any left waiting.
 */
export class MessageOrder {
  constructor(
    private readonly dataSource: DataSource,
    /** The service's quoted schema. */
    private readonly s: string,
  ) {}

  /**
   * Makes the earliest pending delivery of each message due, if it waited behind one that ended:
   * one index probe per message (a scalar subquery per umid, so no plan can read more).
   */
  async releaseNext(db: SqlExecutor, umids: readonly string[], offer?: HoldOffer): Promise<ClaimedDelivery[]> {
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
    const leased = rowsOf<{ delivery_id: string; lease_token: string }>(
      await db.query(
        `UPDATE ${this.s}.deliveries SET ${leaseSet(deliveryQueueTable(this.s), '$2')}
          WHERE delivery_id = ANY($1::uuid[]) RETURNING delivery_id, lease_token::text AS lease_token`,
        [held.map((r) => r.delivery_id), offer.leaseMs],
      ),
    );
    const tokenOf = new Map(leased.map((l) => [l.delivery_id, l.lease_token]));
    deliveryQueueMetrics.claimed(leased.length);
    return held.map((r) => claimedOf({ ...r, lease_token: tokenOf.get(r.delivery_id) ?? '' }, claimedAt));
  }

  /** Puts every unheld pending change of these messages that is not their earliest pending one back to wait. */
  async holdBehindEarlier(db: SqlExecutor, umids: readonly string[]): Promise<void> {
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
}
