import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { affectedRows, quoteSchema, rowsOf } from '@seed/platform-event-store';
import { ServiceSchema } from '@seed/platform-nest';
import { claimStatement, heldParams, runClaim, heldUnder, releaseStatement, type LeaseToken, type WorkQueueTable } from '@seed/platform-work-queue';
import { outboundQueueMetrics, outboundQueueTable } from './outbound-queue.table';

export interface OutboundMessage {
  umid: string;
  /** Empty for rows queued before routes could match by account. */
  accountId: string;
  subAccountId: string;
  destination: string;
  source: string | null;
  text: string;
  encoding: 'GSM7' | 'UCS2';
  expiry: string | null;
  attempts: number;
  /** The claim's fencing token: results and hand-backs are written only while the row still carries it. */
  leaseToken: LeaseToken;
  /** The trace of the request that queued the message (W3C traceparent), if any. */
  traceparent: string | null;
  /** The carrier its route chose, kept for a replica holding a session to it; null: not routed yet. */
  pinnedCarrier: string | null;
  /** Carriers it failed over from, in order. */
  tried: string[];
  /** The pinned carrier accepted some of its parts: the others go there too, whatever the route says now. */
  locked: boolean;
}

/** A claimed row, named by its umid and the token of the claim that holds it. */
export interface HeldMessage {
  umid: string;
  leaseToken: LeaseToken;
}

/** Claims and releases rows of the outbound queue; a claim is a lease, so a crashed sender's rows return. */
@Injectable()
export class OutboundQueueRepository {
  private readonly s: string;
  private readonly q: WorkQueueTable;

  constructor(
    private readonly dataSource: DataSource,
    schema: ServiceSchema,
  ) {
    this.s = quoteSchema(schema.name);
    this.q = outboundQueueTable(this.s);
  }

  /**
   * Due rows nobody holds, leased to this sender for `leaseMs` (only those past their expiry, when
   * asked). SKIP LOCKED lets replicas share the queue. The lease is the due time moved forward
   * (lease_until records it too): a claimed row leaves the front of the due index, so a claim reads
   * only the rows it takes, O(batch) however many wait or are on the wire, and a crashed sender's
   * rows are due again when their lease ends. Planned on each call, with sorts and sequential scans
   * priced out (runClaim): the queue goes from empty to a whole batch within seconds, and a plan
   * made for an empty queue (kept, or from statistics taken while it was) reads all of it.
   */
  async claim(limit: number, leaseMs: number, onlyExpired = false, carriers: readonly string[] = []): Promise<OutboundMessage[]> {
    // Rows pinned to a carrier are taken only by replicas with a session to it (`carriers`).
    const due = onlyExpired
      ? `SELECT umid FROM ${this.s}.outbound_queue WHERE expiry <= now() AND next_attempt_at <= now() ORDER BY expiry LIMIT $1 FOR UPDATE SKIP LOCKED`
      : `SELECT umid FROM ${this.s}.outbound_queue WHERE next_attempt_at <= now() AND (carrier_id IS NULL OR carrier_id = ANY($3::text[]))
          ORDER BY next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED`;
    const result = await runClaim(
      this.dataSource,
      claimStatement(this.q, {
        alias: 'q',
        dueRows: due,
        leaseMsParam: '$2',
        alsoSet: 'attempts = q.attempts + 1',
        returning:
          'q.umid, q.account_id, q.sub_account_id, q.destination, q.source, q.text, q.encoding, q.expiry, q.attempts, q.lease_token, q.traceparent, q.carrier_id, q.tried, q.carrier_locked',
      }),
      onlyExpired ? [limit, leaseMs] : [limit, leaseMs, carriers],
    );
    const claimed = rowsOf<Row>(result).map(toMessage);
    outboundQueueMetrics.claimed(claimed.length);
    return claimed;
  }

  /**
   * Routed to a carrier this replica holds no session to: back in the queue, due now, pinned to
   * that carrier so a replica that holds one takes it. Only rows still held under the claim.
   */
  async pin(held: HeldMessage, carrierId: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE ${this.s}.outbound_queue SET lease_until = NULL, next_attempt_at = now(), carrier_id = $3, attempts = attempts - 1
        WHERE ${heldUnder(this.q, '$1', '$2')}`,
      [held.umid, held.leaseToken, carrierId],
    );
  }

  /**
   * The carrier could not take the message now: it is routed again, without that carrier, after
   * `delayMs` (0 when another carrier of its route may take it). `tried` empty: every carrier was
   * tried, so the next attempt starts over from the first.
   */
  async failOver(held: HeldMessage, tried: readonly string[], delayMs: number): Promise<void> {
    await this.dataSource.query(
      `UPDATE ${this.s}.outbound_queue SET lease_until = NULL, carrier_id = NULL, tried = $3::text[],
              next_attempt_at = now() + make_interval(secs => $4::double precision / 1000)
        WHERE ${heldUnder(this.q, '$1', '$2')}`,
      [held.umid, held.leaseToken, [...tried], delayMs],
    );
  }

  /**
   * Not sent this time (throttled, carrier away, shutting down): due again after `delayMs`. Only
   * rows still held under the given claim: one claimed anew by another sender stays with it.
   */
  async release(held: HeldMessage[], delayMs: number, countAttempt = true, lockTo: string | null = null): Promise<void> {
    if (held.length === 0) return;
    const statement = releaseStatement(this.q, {
      alias: 'q',
      set: `next_attempt_at = now() + make_interval(secs => $3::double precision / 1000),
              attempts = q.attempts - CASE WHEN $4 THEN 0 ELSE 1 END,
              carrier_id = coalesce($5, q.carrier_id), carrier_locked = q.carrier_locked OR $5 IS NOT NULL`,
    });
    const result = await this.dataSource.query(statement, [...heldParams(held.map((h) => ({ id: h.umid, leaseToken: h.leaseToken }))), delayMs, countAttempt, lockTo]);
    outboundQueueMetrics.released(affectedRows(result));
  }
}

type Row = {
  umid: string;
  account_id: string | null;
  sub_account_id: string | null;
  destination: string;
  source: string | null;
  text: string;
  encoding: 'GSM7' | 'UCS2';
  expiry: Date | null;
  attempts: number;
  lease_token: string;
  traceparent: string | null;
  carrier_id: string | null;
  tried: string[] | null;
  carrier_locked: boolean | null;
};

function toMessage(r: Row): OutboundMessage {
  return {
    umid: r.umid,
    accountId: r.account_id ?? '',
    subAccountId: r.sub_account_id ?? '',
    destination: r.destination,
    source: r.source,
    text: r.text,
    encoding: r.encoding,
    expiry: r.expiry ? new Date(r.expiry).toISOString() : null,
    attempts: r.attempts,
    leaseToken: String(r.lease_token),
    traceparent: r.traceparent,
    pinnedCarrier: r.carrier_id,
    tried: r.tried ?? [],
    locked: r.carrier_locked === true,
  };
}
