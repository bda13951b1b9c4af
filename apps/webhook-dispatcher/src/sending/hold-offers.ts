import type { Logger } from 'pino';
import type { ClaimedDelivery, HoldOffer } from './claimed-delivery';
import type { DeliveryPump } from './delivery-pump';
import type { DeliveryStore } from './delivery-store';
import type { HeldDeliveries } from './held-deliveries';
import type { SecretsOf } from './sender-options';

/**
 * Deliveries taken into the sender's hold: claimed ones, and those the transactions that make
 * deliveries due leased to it through its offer (HoldOffer), each with the secrets that sign it.
 */
export class HoldOffers {
  constructor(
    private readonly state: HeldDeliveries,
    private readonly store: DeliveryStore,
    private readonly secretsOf: SecretsOf,
    private readonly pump: DeliveryPump,
    private readonly logger: Logger,
  ) {}

  /**
   * An offer for one transaction that makes deliveries due (intake, or the next change of a message
   * after its earlier one ended): room as a claim would see it now, within the waiting line of the
   * slots this replica holds (an endpoint it holds none of is left to the claim, which asks for
   * them). Deliveries it takes skip the claim: no query to find them, and nothing to scan past in
   * the due index. A quarter of the free room at most per offer, since offers of concurrent
   * transactions do not see each other's takes.
   */
  offer(): HoldOffer | undefined {
    const state = this.state;
    if (!state.running) return undefined;
    let room = Math.floor((state.options.maxHeld - state.held) / 4);
    const now = Date.now();
    const taken = new Map<string, number>();
    return {
      leaseMs: state.options.leaseMs,
      take: (origin) => {
        const endpoint = state.endpoints.get(origin);
        if (room <= 0 || !endpoint) return false;
        const count = taken.get(origin) ?? 0;
        if (count >= endpoint.room(now, state.options.endpointConcurrency, state.startMarginMs())) return false;
        taken.set(origin, count + 1);
        room--;
        return true;
      },
    };
  }

  /** Deliveries an offer took, committed: sent as claimed ones are. */
  take(held: readonly ClaimedDelivery[]): void {
    if (held.length === 0) return;
    if (!this.state.running) {
      // Committed while stopping: handed straight back (else their leases would hold them a minute).
      void this.store.release(held.map((d) => ({ deliveryId: d.deliveryId, leaseToken: d.leaseToken, dueAt: null }))).catch(() => undefined);
      return;
    }
    void this.adopt([...held])
      .then(() => new Set(held.map((d) => d.origin)).forEach((origin) => this.pump.pump(origin)))
      .catch((error: unknown) => this.logger.error({ err: error }, 'held deliveries not taken; their leases give them back'));
  }

  /** Claimed or taken deliveries join their endpoints' waiting lines (the caller pumps them). */
  async adopt(claimed: ClaimedDelivery[]): Promise<void> {
    if (claimed.length === 0) return;
    const state = this.state;
    state.held += claimed.length;
    let secrets: Map<string, string[]>;
    try {
      secrets = await this.secretsOf([...new Set(claimed.map((d) => d.accountId))]);
    } catch (error) {
      state.held -= claimed.length;
      await this.store.release(claimed.map((d) => ({ deliveryId: d.deliveryId, leaseToken: d.leaseToken, dueAt: null })));
      throw error;
    }
    for (const delivery of claimed) state.endpoint(delivery.origin).waiting.push(Object.assign(delivery, { secrets: secrets.get(delivery.accountId) ?? [] }));
  }
}
