import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { PLAN_EACH_CALL, quoteSchema, rowsOf } from '@seed/platform-event-store';
import { ServiceSchema } from '@seed/platform-nest';

export interface OutboundMessage {
  umid: string;
  destination: string;
  source: string | null;
  text: string;
  encoding: 'GSM7' | 'UCS2';
  expiry: string | null;
  attempts: number;
  /** The claim's fencing token: results and hand-backs are written only while the row still carries it. */
  leaseToken: string;
  /** The trace of the request that queued the message (W3C traceparent), if any. */
  traceparent: string | null;
}

/** A claimed row, named by its umid and the token of the claim that holds it. */
export interface HeldMessage {
  umid: string;
  leaseToken: string;
}

/** Claims and releases rows of the outbound queue; a claim is a lease, so a crashed sender's rows return. */
@Injectable()
export class OutboundQueueRepository {
  private readonly s: string;

  constructor(
    private readonly dataSource: DataSource,
    schema: ServiceSchema,
  ) {
    this.s = quoteSchema(schema.name);
  }

  /**
   * Due rows nobody holds, leased to this sender for `leaseMs` (only those past their expiry, when
   * asked). SKIP LOCKED lets replicas share the queue. The lease is the due time moved forward
   * (lease_until records it too): a claimed row leaves the front of the due index, so a claim reads
   * only the rows it takes, O(batch) however many wait or are on the wire, and a crashed sender's
   * rows are due again when their lease ends. Planned on each call: the queue goes from empty to a
   * whole batch within seconds, and a plan kept from an empty queue scans all of it.
   */
  async claim(limit: number, leaseMs: number, onlyExpired = false): Promise<OutboundMessage[]> {
    const due = onlyExpired
      ? `SELECT umid FROM ${this.s}.outbound_queue WHERE expiry <= now() AND next_attempt_at <= now() ORDER BY expiry LIMIT $1 FOR UPDATE SKIP LOCKED`
      : `SELECT umid FROM ${this.s}.outbound_queue WHERE next_attempt_at <= now() ORDER BY next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED`;
    const result = await this.dataSource.query(
      `${PLAN_EACH_CALL} UPDATE ${this.s}.outbound_queue q
          SET next_attempt_at = now() + make_interval(secs => $2::double precision / 1000), lease_until = now() + make_interval(secs => $2::double precision / 1000),
              attempts = q.attempts + 1, lease_token = nextval('${this.s}.outbound_lease_tokens')
        WHERE q.umid IN (${due})
        RETURNING q.umid, q.destination, q.source, q.text, q.encoding, q.expiry, q.attempts, q.lease_token, q.traceparent`,
      [limit, leaseMs],
    );
    type Row = { umid: string; destination: string; source: string | null; text: string; encoding: 'GSM7' | 'UCS2'; expiry: Date | null; attempts: number; lease_token: string; traceparent: string | null };
    return rowsOf<Row>(result).map(({ lease_token, ...r }) => ({ ...r, expiry: r.expiry ? new Date(r.expiry).toISOString() : null, leaseToken: String(lease_token) }));
  }

  /**
   * Not sent this time (throttled, carrier away, shutting down): due again after `delayMs`. Only
   * rows still held under the given claim: one claimed anew by another sender stays with it.
   */
  async release(held: HeldMessage[], delayMs: number, countAttempt = true): Promise<void> {
    if (held.length === 0) return;
    await this.dataSource.query(
      `UPDATE ${this.s}.outbound_queue q
          SET lease_until = NULL, next_attempt_at = now() + make_interval(secs => $3::double precision / 1000),
              attempts = q.attempts - CASE WHEN $4 THEN 0 ELSE 1 END
         FROM unnest($1::uuid[], $2::bigint[]) AS h(umid, lease_token)
        WHERE q.umid = h.umid AND q.lease_token = h.lease_token`,
      [held.map((h) => h.umid), held.map((h) => h.leaseToken), delayMs, countAttempt],
    );
  }
}
