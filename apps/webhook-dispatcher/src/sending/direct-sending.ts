import type { Logger } from 'pino';
import type { DirectHeld, DirectTicket } from './claimed-delivery';
import type { DirectDelivery, DirectOffer } from './direct-delivery';
import type { DeliveryPump } from './delivery-pump';
import type { HeldDeliveries } from './held-deliveries';
import type { SecretsOf } from './sender-options';

/** Direct deliveries held at once, as a multiple of WEBHOOK_MAX_IN_FLIGHT (they hold no row, and no other replica waits for them). */
const DIRECT_PER_HELD = 16;
const DIRECT_WAIT_MS = 2000;
/**
 * Direct deliveries an endpoint may hold per usable slot: what it answers in a quarter of the
 * wait at its recent pace, within these bounds (the lower one until it has answered at all).
 */
const DIRECT_DEPTH = { min: 8, max: 128 };
/**
 * Status events handed over for direct delivery that are remembered (DirectOffer.handedOver): a
 * repeat of one of them on the topic is dropped. The relay repeats a batch when its checkpoint did
 * not commit after the send (a PostgreSQL restart): seconds later, well within the last 100,000.
 */
const RECENT_DIRECT = 100_000;

/** First attempts the intake hands over without writing them down: what it may hand over, and holding them until each is settled. */
export class DirectSending {
  /** Source event ids of the last RECENT_DIRECT direct deliveries, oldest first. */
  private readonly recentDirect = new Set<string>();

  constructor(
    private readonly state: HeldDeliveries,
    private readonly pump: DeliveryPump,
    private readonly secretsOf: SecretsOf,
    private readonly logger: Logger,
  ) {}

  /**
   * An offer of first attempts without a row, for the intake's transaction: an endpoint this
   * replica holds usable slots of, with a clean breaker, up to DIRECT_DEPTH per slot. Undefined
   * when the sender cannot write deliveries down (then everything is scheduled).
   */
  directOffer(): DirectOffer | undefined {
    const state = this.state;
    if (!state.running || !state.options.writeDown) return undefined;
    let room = state.options.maxHeld * DIRECT_PER_HELD - state.direct;
    const now = Date.now();
    const taken = new Map<string, number>();
    const depth = { ...DIRECT_DEPTH, withinMs: (state.options.directWaitMs ?? DIRECT_WAIT_MS) / 4 };
    const roomAt = (origin: string) => state.endpoints.get(origin)?.directRoom(now, state.options.endpointConcurrency, state.startMarginMs(), depth) ?? 0;
    return {
      handedOver: (eventId) => this.recentDirect.has(eventId),
      open: (origin) => room > 0 && roomAt(origin) > (taken.get(origin) ?? 0),
      take: (origin) => {
        const count = taken.get(origin) ?? 0;
        if (room <= 0 || count >= roomAt(origin)) return false;
        taken.set(origin, count + 1);
        room--;
        return true;
      },
    };
  }

  /**
   * First attempts of status changes the intake did not write down. Resolves once each one has
   * succeeded or has been written down (failed, not settled within `directWaitMs`, or handed back
   * on stop): only then may the intake commit their events' offsets. A success writes nothing; a
   * written-down delivery goes on as a scheduled one (retries, dead letters), an in-flight one
   * leased to this replica so that its outcome is recorded as a claimed delivery's. The changes of
   * one message (in `items`' order) go one after the other: a later one is sent once the earlier
   * one succeeded, and written down behind it when it did not.
   */
  async sendDirect(items: readonly DirectDelivery[]): Promise<void> {
    if (items.length === 0) return;
    const state = this.state;
    const settled: Promise<void>[] = [];
    const claimedAt = Date.now();
    const deliveries: DirectHeld[] = items.map(({ scheduled, origin, traceparent }) => {
      let settle: () => void = () => undefined;
      settled.push(new Promise<void>((resolve) => (settle = resolve)));
      const direct: DirectTicket = { scheduled, state: 'memory', place: 'follower', followers: [], settle };
      const { deliveryId, accountId, url, body } = scheduled;
      return { deliveryId, accountId, url, origin, body, attempts: 0, claimedAt, leaseToken: '', traceparent, direct, secrets: [] };
    });
    const heads = new Map<string, DirectHeld>();
    for (const d of deliveries) {
      const head = heads.get(d.direct.scheduled.umid);
      if (head) head.direct.followers.push(d);
      else heads.set(d.direct.scheduled.umid, d);
    }
    state.direct += deliveries.length;
    for (const d of deliveries) this.recentDirect.add(d.direct.scheduled.sourceEventId);
    for (const eventId of this.recentDirect) {
      if (this.recentDirect.size <= RECENT_DIRECT) break;
      this.recentDirect.delete(eventId);
    }
    let secrets: Map<string, string[]> | undefined;
    try {
      secrets = await this.secretsOf([...new Set(deliveries.map((d) => d.accountId))]);
    } catch (error) {
      this.logger.warn({ err: error }, 'signing secrets not read; direct deliveries written down');
    }
    if (!secrets || !state.running) for (const head of heads.values()) state.writeDownChain(head, false);
    else {
      for (const d of deliveries) d.secrets = secrets.get(d.accountId) ?? [];
      for (const head of heads.values()) state.line(head);
      new Set([...heads.values()].map((d) => d.origin)).forEach((origin) => this.pump.pump(origin));
    }
    state.flushPause.wake();
    const late = setTimeout(() => this.writeDownUnsettled(deliveries), state.options.directWaitMs ?? DIRECT_WAIT_MS);
    try {
      await Promise.all(settled);
    } finally {
      clearTimeout(late);
    }
  }

  /** Direct deliveries still without an outcome: written down, so that the intake may go on (one slow endpoint never holds it up). */
  private writeDownUnsettled(deliveries: readonly DirectHeld[]): void {
    const state = this.state;
    const unsettled = deliveries.filter((d) => d.direct.state === 'memory');
    const waiting = new Set(unsettled.filter((d) => d.direct.place === 'waiting'));
    for (const origin of new Set([...waiting].map((d) => d.origin))) {
      const endpoint = state.endpoints.get(origin);
      if (endpoint) endpoint.waiting = endpoint.waiting.filter((d) => !waiting.has(d as DirectHeld));
    }
    state.held -= waiting.size;
    // Every link of a chain is among the unsettled ones: each is written down on its own here
    // (one transaction for all, which orders a message's changes by their sequence).
    for (const d of unsettled) {
      d.direct.followers = [];
      state.writeDownChain(d, d.direct.place === 'flight');
    }
  }
}
