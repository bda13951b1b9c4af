import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { affectedRows } from '@seed/platform-event-store';
import { heldParams, releaseStatement, type LeaseToken } from '@seed/platform-work-queue';
import type { ClaimedDelivery } from './claimed-delivery';
import { DeliveryClaimer, type Claim, type ClaimRequest } from './delivery-claim';
import { deliveryQueueMetrics, deliveryQueueTable } from './delivery-queue.table';

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
  async release(items: readonly { deliveryId: string; leaseToken: LeaseToken; dueAt: Date | null }[]): Promise<void> {
    if (items.length === 0) return;
    // Held: a hand-back or a recorded outcome ends the claim (lease_until NULL) and keeps its token.
    const statement = releaseStatement(deliveryQueueTable(this.s), {
      alias: 'd',
      set: 'next_attempt_at = COALESCE(h.due_at, now())',
      extra: [{ name: 'due_at', type: 'timestamptz' }],
      where: "d.state = 'pending' AND d.lease_until IS NOT NULL",
    });
    const result = await this.dataSource.query(statement, [...heldParams(items.map((i) => ({ id: i.deliveryId, leaseToken: i.leaseToken }))), items.map((i) => i.dueAt?.toISOString() ?? null)]);
    deliveryQueueMetrics.released(affectedRows(result));
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
