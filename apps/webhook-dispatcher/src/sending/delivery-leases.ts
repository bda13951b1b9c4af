import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import type { ClaimedDelivery } from './claimed-delivery';
import { DeliveryClaimer, type Claim, type ClaimRequest } from './delivery-claim';

/** Leases on deliveries and on endpoints' sending slots: taken by a claim, handed back by a sender. */
export class DeliveryLeases {
  private readonly claimer: DeliveryClaimer;
  /** The slot holder of claims made without a sender (tools and tests). */
  private readonly holder = `store-${randomUUID()}`;

  constructor(
    private readonly dataSource: DataSource,
    /** The service's quoted schema. */
    private readonly s: string,
  ) {
    this.claimer = new DeliveryClaimer(dataSource, s);
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
}
