import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { quoteSchema, rowsOf } from '@seed/platform-event-store';
import { ServiceSchema } from '@seed/platform-nest';

/** A bind slot this replica leases: the right to keep one session to the carrier open. */
export interface HeldSlot {
  carrierId: string;
  slot: number;
  /** Fencing token of the lease: renewals and releases apply only while the slot still carries it. */
  token: string;
}

/** What a renewal reports of a held slot. */
export interface SlotReport extends HeldSlot {
  bound: boolean;
  /** The carrier refused with throttling or temporary errors since the last report: for how long to avoid it. */
  throttledForMs: number;
}

/** A carrier as every replica sees it, summed over the live leases. */
export interface CarrierSlotStatus {
  carrierId: string;
  heldSlots: number;
  boundSessions: number;
  throttled: boolean;
}

/**
 * The carrier-wide session budget in PostgreSQL: one row per allowed bind of each carrier, leased
 * by the replica that keeps that session open. Leases are renewed every tick and expire on their
 * own when a replica dies, so another takes the slot over; tokens fence a replica whose lease ran
 * out while it was paused from renewing the new holder's lease.
 */
@Injectable()
export class BindSlotsRepository {
  private readonly s: string;

  constructor(
    private readonly dataSource: DataSource,
    schema: ServiceSchema,
  ) {
    this.s = quoteSchema(schema.name);
  }

  /** The slots of every configured carrier exist, and no more than its binds. */
  async shape(binds: ReadonlyMap<string, number>): Promise<void> {
    const ids = [...binds.keys()];
    const counts = ids.map((id) => binds.get(id) as number);
    await this.dataSource.query(
      `WITH wanted AS (SELECT c.carrier_id, g.slot FROM unnest($1::text[], $2::int[]) AS c(carrier_id, binds), generate_series(0, c.binds - 1) AS g(slot)),
            added AS (INSERT INTO ${this.s}.carrier_bind_slots (carrier_id, slot) SELECT carrier_id, slot FROM wanted ON CONFLICT DO NOTHING)
       DELETE FROM ${this.s}.carrier_bind_slots s
        WHERE NOT EXISTS (SELECT 1 FROM wanted w WHERE w.carrier_id = s.carrier_id AND w.slot = s.slot)
          AND (s.holder IS NULL OR s.lease_until < now())`,
      [ids, counts],
    );
  }

  /** Extends the leases still this replica's; returns those (a slot missing from it was lost). */
  async renew(replicaId: string, reports: readonly SlotReport[], leaseMs: number): Promise<HeldSlot[]> {
    if (reports.length === 0) return [];
    const rows = rowsOf<{ carrier_id: string; slot: number; token: string }>(
      await this.dataSource.query(
        `UPDATE ${this.s}.carrier_bind_slots s
            SET lease_until = now() + make_interval(secs => $6::double precision / 1000), bound = r.bound,
                throttled_until = CASE WHEN r.throttled_ms > 0 THEN now() + make_interval(secs => r.throttled_ms::double precision / 1000) ELSE s.throttled_until END
           FROM unnest($2::text[], $3::int[], $4::bigint[], $5::boolean[], $7::int[]) AS r(carrier_id, slot, token, bound, throttled_ms)
          WHERE s.carrier_id = r.carrier_id AND s.slot = r.slot AND s.token = r.token AND s.holder = $1
          RETURNING s.carrier_id, s.slot, s.token`,
        [
          replicaId,
          reports.map((r) => r.carrierId),
          reports.map((r) => r.slot),
          reports.map((r) => r.token),
          reports.map((r) => r.bound),
          leaseMs,
          reports.map((r) => Math.round(r.throttledForMs)),
        ],
      ),
    );
    return rows.map((r) => ({ carrierId: r.carrier_id, slot: r.slot, token: String(r.token) }));
  }

  /** Up to `count` free or expired slots of a carrier, leased to this replica under new tokens. */
  async acquire(replicaId: string, carrierId: string, count: number, leaseMs: number): Promise<HeldSlot[]> {
    if (count <= 0) return [];
    const rows = rowsOf<{ slot: number; token: string }>(
      await this.dataSource.query(
        `UPDATE ${this.s}.carrier_bind_slots s
            SET holder = $1, token = nextval('${this.s}.carrier_bind_tokens'), bound = false,
                lease_until = now() + make_interval(secs => $4::double precision / 1000)
          WHERE (s.carrier_id, s.slot) IN (
                SELECT carrier_id, slot FROM ${this.s}.carrier_bind_slots
                 WHERE carrier_id = $2 AND (holder IS NULL OR lease_until < now())
                 ORDER BY slot LIMIT $3 FOR UPDATE SKIP LOCKED)
          RETURNING s.slot, s.token`,
        [replicaId, carrierId, count, leaseMs],
      ),
    );
    return rows.map((r) => ({ carrierId, slot: r.slot, token: String(r.token) }));
  }

  /** Gives slots back (their sessions are closed first), so another replica may take them at once. */
  async release(held: readonly HeldSlot[]): Promise<void> {
    if (held.length === 0) return;
    await this.dataSource.query(
      `UPDATE ${this.s}.carrier_bind_slots s SET holder = NULL, token = NULL, lease_until = NULL, bound = false
         FROM unnest($1::text[], $2::int[], $3::bigint[]) AS h(carrier_id, slot, token)
        WHERE s.carrier_id = h.carrier_id AND s.slot = h.slot AND s.token = h.token`,
      [held.map((h) => h.carrierId), held.map((h) => h.slot), held.map((h) => h.token)],
    );
  }

  /** Every carrier's live leases, bound sessions and throttling, as all replicas reported them. */
  async status(): Promise<CarrierSlotStatus[]> {
    const rows = rowsOf<{ carrier_id: string; held: string; bound: string; throttled: boolean }>(
      await this.dataSource.query(
        `SELECT carrier_id,
                count(*) FILTER (WHERE lease_until > now()) AS held,
                count(*) FILTER (WHERE lease_until > now() AND bound) AS bound,
                coalesce(bool_or(throttled_until > now()), false) AS throttled
           FROM ${this.s}.carrier_bind_slots GROUP BY carrier_id`,
      ),
    );
    return rows.map((r) => ({ carrierId: r.carrier_id, heldSlots: Number(r.held), boundSessions: Number(r.bound), throttled: r.throttled }));
  }
}
