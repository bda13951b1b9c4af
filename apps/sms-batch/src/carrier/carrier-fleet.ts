import type { Logger } from 'pino';
import { FailureStreak } from '@seed/platform-logging';
import { implicitCatchAll, type CarrierAvailability, type RoutingTable } from '@seed/sms-batch-domain';
import { sessionFingerprint, type ActiveCarrier, type RoutingConfigSource } from './active-carrier';
import { fairShare, slotKey, type Held } from './bind-share';
import type { BindSlotsRepository, CarrierSlotStatus, HeldSlot } from './bind-slots.repository';
import type { CarrierPinsRepository } from './carrier-pins.repository';
import type { SenderReplicasRepository } from './sender-replicas.repository';
import { BoundWaiters } from './bound-waiters';
import { CarrierAvoidance } from './carrier-avoidance';
import { attachCarrierMetrics } from './carrier.metrics';
import { SmppCarrier, type IncomingDeliverSm } from './smpp-carrier';
import { SmppCarrierPool } from './smpp-carrier-pool';

/** What the fleet keeps in PostgreSQL, shared with the other replicas. */
export interface FleetTables {
  slots: BindSlotsRepository;
  replicas: SenderReplicasRepository;
  pins: CarrierPinsRepository;
}

export interface FleetSettings {
  /** This replica's name in the bind leases (unique among live replicas). */
  replicaId: string;
  tickMs: number;
  /** How long a bind lease lasts unless renewed: a dead replica's sessions are taken over after it. */
  leaseMs: number;
  /** How long a carrier that throttled or answered temporary errors is passed over. */
  avoidMs: number;
  enquireLinkMs: number;
  responseTimeoutMs: number;
  reconnectMaxMs: number;
}

/**
 * This replica's part of every carrier: it keeps the routing table fresh (every tick, so changes
 * apply within seconds without a restart), leases its fair share of each carrier's bind slots and
 * keeps one session open per slot it holds, caps each carrier's submits to its share of the
 * carrier's maxPerSecond, and knows which carriers are bound or throttling anywhere.
 */
export class CarrierFleet {
  private readonly tickFailures: FailureStreak;
  private carriers = new Map<string, ActiveCarrier>();
  private routingTable: RoutingTable = { routes: [], carriers: new Map() };
  private readonly pools = new Map<string, SmppCarrierPool>();
  private readonly held = new Map<string, Held>();
  private status = new Map<string, CarrierSlotStatus>();
  /** This replica's own bound sessions per carrier at its last report, to tell them from the others'. */
  private reportedBound = new Map<string, number>();
  private readonly boundWaiters = new BoundWaiters();
  private timer: NodeJS.Timeout | undefined;
  private guard: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  private detachMetrics: (() => void) | undefined;
  private readonly avoidance: CarrierAvoidance;

  readonly availability: CarrierAvailability = {
    isBound: (carrierId) => this.boundAnywhere(carrierId),
    isThrottled: (carrierId) => this.avoidance.remainingMs(carrierId) > 0 || this.status.get(carrierId)?.throttled === true,
  };

  constructor(
    private readonly source: RoutingConfigSource,
    private readonly tables: FleetTables,
    private readonly settings: FleetSettings,
    private readonly logger: Logger,
    private readonly onDeliverSm: (carrierId: string, pdu: IncomingDeliverSm) => Promise<void>,
  ) {
    this.avoidance = new CarrierAvoidance(settings.avoidMs, logger);
    this.tickFailures = new FailureStreak(logger, 'carrier fleet tick failed; retrying');
  }

  async start(): Promise<void> {
    this.detachMetrics = attachCarrierMetrics(() => this.pools.values());
    await this.tick();
    const loop = () => {
      this.timer = setTimeout(() => {
        this.ticking = this.tick().finally(() => {
          this.ticking = undefined;
          if (this.timer) loop();
        });
      }, this.settings.tickMs);
    };
    loop();
    // Between ticks too: a session whose lease may have lapsed is closed at once (fencing by time).
    this.guard = setInterval(() => this.closeLapsed(), Math.min(250, this.settings.tickMs));
  }

  async stop(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    clearInterval(this.guard);
    await this.ticking;
    await Promise.all([...this.held.keys()].map((key) => this.giveBack(key)));
    await this.tables.replicas.leave(this.settings.replicaId).catch((error: unknown) => this.logger.warn({ err: error }, 'replica not signed off; the others count it out after a few seconds'));
    await Promise.all([...this.pools.values()].map((pool) => pool.stop()));
    this.detachMetrics?.();
  }

  /** Carriers and routes as last read (empty until the first tick). */
  table(): RoutingTable {
    return this.routingTable;
  }

  carrier(carrierId: string): ActiveCarrier | undefined {
    return this.carriers.get(carrierId);
  }

  isConfigured(): boolean {
    return this.carriers.size > 0;
  }

  /** This replica's sessions to a carrier, when it holds any bound one. */
  boundPool(carrierId: string): SmppCarrierPool | undefined {
    const pool = this.pools.get(carrierId);
    return pool?.isBound() ? pool : undefined;
  }

  /** Carriers this replica has a bound session to: the pinned queue rows it may claim. */
  localCarriers(): string[] {
    return [...this.pools.values()].filter((pool) => pool.isBound()).map((pool) => pool.carrierId);
  }

  /** Some enabled carrier has a bound session, here or on another replica. */
  anyBound(): boolean {
    return [...this.carriers.values()].some((c) => c.enabled && this.boundAnywhere(c.carrierId));
  }

  waitUntilAnyBound(timeoutMs: number): Promise<boolean> {
    return this.boundWaiters.wait(timeoutMs, () => this.anyBound());
  }

  /** A carrier refused a submit: throttling and temporary errors make it avoided for a while. */
  noteRefusal(carrierId: string, status: number): void {
    this.avoidance.note(carrierId, status);
  }

  private boundAnywhere(carrierId: string): boolean {
    const here = this.pools.get(carrierId)?.boundSessions() ?? 0;
    const elsewhere = (this.status.get(carrierId)?.boundSessions ?? 0) - (this.reportedBound.get(carrierId) ?? 0);
    return here > 0 || elsewhere > 0;
  }

  private async tick(): Promise<void> {
    try {
      await this.reload();
      const startedAt = Date.now();
      const live = await this.tables.replicas.heartbeat(this.settings.replicaId);
      const enabled = [...this.carriers.values()].filter((c) => c.enabled);
      await this.tables.slots.shape(new Map(enabled.map((c) => [c.carrierId, c.binds])));
      await this.renew(startedAt);
      await this.rebalance(enabled, live, startedAt);
      this.status = new Map((await this.tables.slots.status()).map((s) => [s.carrierId, s]));
      this.applyRates();
      const routable = enabled.filter((c) => this.boundAnywhere(c.carrierId)).map((c) => c.carrierId);
      const unpinned = await this.tables.pins.unpinExcept(routable);
      if (unpinned > 0) this.logger.info({ unpinned, routable }, 'messages waiting for a carrier that cannot take them are routed again');
      this.avoidance.countTick(this.settings.tickMs);
      if (this.anyBound()) this.boundWaiters.wakeAll();
      this.tickFailures.succeeded();
    } catch (error) {
      this.tickFailures.failed(error);
    }
  }

  private async reload(): Promise<void> {
    const config = await this.source.load();
    this.carriers = new Map(config.carriers.map((c) => [c.carrierId, c]));
    const carriers = new Map(config.carriers.map((c) => [c.carrierId, { enabled: c.enabled }]));
    // The implicit catch-all built once per change, not once per message.
    this.routingTable = { routes: config.routes.length === 0 && carriers.size > 0 ? [implicitCatchAll(carriers)] : config.routes, carriers };
    for (const carrier of config.carriers) if (carrier.enabled) this.poolOf(carrier.carrierId);
    for (const [carrierId, pool] of this.pools) {
      if (this.carriers.get(carrierId)?.enabled || [...this.held.values()].some((h) => h.slot.carrierId === carrierId)) continue;
      this.pools.delete(carrierId);
      void pool.stop();
    }
  }

  /** Renews every held lease; a slot no longer ours (its lease ran out and another took it) loses its session. */
  private async renew(startedAt: number): Promise<void> {
    const entries = [...this.held.entries()];
    const reports = entries.map(([, h]) => ({
      ...h.slot,
      bound: h.session.isBound(),
      throttledForMs: this.avoidance.remainingMs(h.slot.carrierId),
    }));
    const kept = new Set((await this.tables.slots.renew(this.settings.replicaId, reports, this.settings.leaseMs)).map(slotKey));
    this.reportedBound = new Map();
    for (const [key, h] of entries) {
      if (kept.has(key)) {
        h.validUntil = startedAt + this.settings.leaseMs - this.settings.tickMs;
        if (h.session.isBound()) this.reportedBound.set(h.slot.carrierId, (this.reportedBound.get(h.slot.carrierId) ?? 0) + 1);
        continue;
      }
      this.logger.warn({ carrier: h.slot.carrierId, slot: h.slot.slot }, 'bind lease lost; closing its session');
      this.held.delete(key);
      void this.poolOf(h.slot.carrierId).remove(h.session, 0);
    }
  }

  private async rebalance(enabled: ActiveCarrier[], live: string[], startedAt: number): Promise<void> {
    const enabledIds = new Set(enabled.map((c) => c.carrierId));
    // Disabled, removed or changed carriers: their sessions close (changed ones reopen next tick).
    for (const [key, h] of [...this.held.entries()]) {
      const carrier = this.carriers.get(h.slot.carrierId);
      if (h.closing || (enabledIds.has(h.slot.carrierId) && carrier && sessionFingerprint(carrier) === h.fingerprint)) continue;
      void this.giveBack(key);
    }
    const rank = Math.max(0, live.indexOf(this.settings.replicaId));
    for (const carrier of enabled) {
      const target = fairShare(carrier.binds, live.length, rank, carrier.carrierId);
      const mine = [...this.held.entries()].filter(([, h]) => h.slot.carrierId === carrier.carrierId && !h.closing);
      // Sessions are kept up to the most any replica needs (the even split rounded up): a replica
      // joining takes only what others give up above that, so a session never moves for nothing.
      for (const [key] of mine.slice(Math.max(target, Math.ceil(carrier.binds / Math.max(1, live.length))))) void this.giveBack(key);
      // Slots still closing count against the budget until they are released.
      const closing = [...this.held.values()].filter((h) => h.slot.carrierId === carrier.carrierId && h.closing).length;
      const gained = await this.tables.slots.acquire(this.settings.replicaId, carrier.carrierId, target - mine.length - closing, this.settings.leaseMs);
      for (const slot of gained) this.open(carrier, slot, startedAt);
    }
  }

  /** Closes the session of a slot (its submits on the wire finish), then releases the slot for another replica. */
  private async giveBack(key: string): Promise<void> {
    const h = this.held.get(key);
    if (!h || h.closing) return;
    h.closing = true;
    await this.poolOf(h.slot.carrierId).remove(h.session);
    if (this.held.get(key) !== h) return; // lost meanwhile: nothing to release
    this.held.delete(key);
    await this.tables.slots.release([h.slot]).catch((error: unknown) => this.logger.warn({ err: error, carrier: h.slot.carrierId }, 'bind slot not released; its lease runs out'));
  }

  private open(carrier: ActiveCarrier, slot: HeldSlot, startedAt: number): void {
    const session = new SmppCarrier(
      {
        carrierId: carrier.carrierId,
        url: carrier.url,
        window: carrier.window,
        systemType: carrier.systemType,
        enquireLinkMs: this.settings.enquireLinkMs,
        responseTimeoutMs: this.settings.responseTimeoutMs,
        reconnectMaxMs: this.settings.reconnectMaxMs,
      },
      this.logger.child({ carrier: carrier.carrierId, slot: slot.slot }),
      (pdu) => this.onDeliverSm(carrier.carrierId, pdu),
      () => {
        this.boundWaiters.wakeAll();
      },
    );
    this.held.set(slotKey(slot), {
      slot,
      session,
      fingerprint: sessionFingerprint(carrier),
      validUntil: startedAt + this.settings.leaseMs - this.settings.tickMs,
      closing: false,
    });
    this.poolOf(carrier.carrierId).add(session);
  }

  private closeLapsed(): void {
    const now = Date.now();
    for (const [key, h] of this.held) {
      if (h.validUntil > now) continue;
      this.logger.warn({ carrier: h.slot.carrierId, slot: h.slot.slot }, 'bind lease not renewed in time; closing its session');
      this.held.delete(key);
      void this.poolOf(h.slot.carrierId).remove(h.session, 0);
    }
  }

  /** Each replica sends its share of a carrier's cap: the share its sessions are of all live ones. */
  private applyRates(): void {
    for (const [carrierId, pool] of this.pools) {
      const cap = this.carriers.get(carrierId)?.maxPerSecond ?? null;
      const mine = pool.size();
      const all = Math.max(mine, this.status.get(carrierId)?.heldSlots ?? 0);
      pool.limiter.setRate(cap === null || all === 0 ? Infinity : (cap * mine) / all);
    }
  }

  private poolOf(carrierId: string): SmppCarrierPool {
    let pool = this.pools.get(carrierId);
    if (!pool) {
      pool = new SmppCarrierPool(carrierId);
      this.pools.set(carrierId, pool);
    }
    return pool;
  }
}
