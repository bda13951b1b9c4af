import { DataSource } from 'typeorm';
import { EventStore, type AppendMetadata, type AppendToStream } from '@seed/platform-event-store';
import { claimEnded } from '@seed/platform-work-queue';
import { decideDelivery, deliveryStreamId, evolveDelivery, type BreakerPolicy, type DeliveryCommand, type DeliveryState, type OutcomeRun } from '@seed/webhook-dispatcher-domain';
import type { ClaimedDelivery, HoldOffer } from './claimed-delivery';
import { foldOf, type Fold } from './delivery-fold';
import { deliveryQueueMetrics, deliveryQueueTable } from './delivery-queue.table';
import { writeFoldsAndBreakers, type BreakerReading } from './folds-and-breakers.sql';
import type { MessageOrder } from './message-order';

const SYSTEM_META = (at: string): AppendMetadata => ({ correlationId: 'webhook-dispatcher', causationId: null, occurredAt: at });

/** How a decision is limited, and what else it records in its transaction. */
export interface DecideOptions {
  /** Only deliveries of this account (the admin API's commands). */
  accountId?: string;
  /**
   * The claims the outcomes were attempted under (delivery id -> lease token): a delivery whose row
   * no longer carries its token was claimed anew by another replica, and is left to it.
   */
  leaseTokens?: ReadonlyMap<string, string>;
  /** What the attempts say of their endpoints, recorded on the shared breakers (by origin). */
  breakers?: { runs: ReadonlyMap<string, OutcomeRun>; policy: BreakerPolicy };
}

/** What a decision changed: the deliveries decided, and the next changes it handed to the offer. */
export interface Decided {
  decided: string[];
  held: ClaimedDelivery[];
  /** Outcomes not recorded: their delivery is held by another replica's claim now. */
  fenced: string[];
  /** The breakers of the outcomes' endpoints, after them. */
  breakers: Map<string, BreakerReading>;
}

const nothingDecided = (fenced: string[] = []): Decided => ({ decided: [], held: [], fenced, breakers: new Map() });

interface StateRow {
  delivery_id: string;
  umid: string;
  state: 'pending' | 'delivered' | 'dead';
  attempts: number;
  version: number;
  window_start: Date;
  /** The outcome's claim is no longer the row's (see DecideOptions.leaseTokens). */
  fenced: boolean;
}

/** Decisions on existing deliveries (outcomes, expiries, re-drives), recorded in one transaction each. */
export class DeliveryOutcomes {
  constructor(
    private readonly dataSource: DataSource,
    private readonly store: EventStore,
    private readonly order: MessageOrder,
    /** The service's quoted schema. */
    private readonly s: string,
  ) {}

  /**
   * Decides each command against its delivery's current state and writes the events and new folds,
   * all in one transaction, with what the attempts say of their endpoints' breakers
   * (writeFoldsAndBreakers). Returns the ids of deliveries that were decided (others: nothing to
   * do, or fenced off). A run of successes on a closed breaker without failures writes nothing.
   */
  async decide(commands: readonly (DeliveryCommand & { deliveryId: string })[], at: string, options: DecideOptions = {}, offer?: HoldOffer): Promise<Decided> {
    const runs = [...(options.breakers?.runs ?? [])].filter(([, r]) => r.reset || r.failures > 0).map(([origin, r]) => ({ origin, reset: r.reset, failures: r.failures }));
    if (commands.length === 0 && runs.length === 0) return nothingDecided();
    return this.dataSource.transaction(async (tx) => {
      const rows: StateRow[] =
        commands.length === 0
          ? []
          : await tx.query(
              `SELECT d.delivery_id, d.umid, d.state, d.attempts, d.version, d.window_start,
                      (t.token IS NOT NULL AND ${claimEnded(deliveryQueueTable(this.s), 'd', 't.token::bigint')}) AS fenced
                 FROM ${this.s}.deliveries d LEFT JOIN jsonb_each_text($3::jsonb) AS t(delivery_id, token) ON t.delivery_id::uuid = d.delivery_id
                WHERE d.delivery_id = ANY($1::uuid[]) AND ($2::text IS NULL OR d.account_id = $2) ORDER BY d.delivery_id FOR UPDATE OF d`,
              [[...new Set(commands.map((c) => c.deliveryId))], options.accountId ?? null, JSON.stringify(Object.fromEntries(options.leaseTokens ?? []))],
            );
      const byId = new Map(rows.map((r) => [r.delivery_id, r]));
      const appends: AppendToStream[] = [];
      const folds: Fold[] = [];
      const fenced: string[] = [];
      // One decision per delivery and transaction (the sender never holds a delivery twice at once).
      for (const command of new Map(commands.map((c) => [c.deliveryId, c])).values()) {
        const row = byId.get(command.deliveryId);
        if (!row) continue;
        if (row.fenced) {
          fenced.push(row.delivery_id);
          continue;
        }
        const state: DeliveryState = { status: row.state, attempts: row.attempts, windowStart: new Date(row.window_start).toISOString() };
        const events = decideDelivery(command, state);
        if (events.length === 0) continue;
        appends.push({ streamId: deliveryStreamId(command.deliveryId), expectedVersion: row.version, events });
        folds.push(foldOf(command.deliveryId, row.version + events.length, events.reduce(evolveDelivery, state), events));
      }
      deliveryQueueMetrics.fencedOff(fenced.length);
      if (appends.length === 0 && runs.length === 0) return nothingDecided(fenced);
      if (appends.length > 0) await this.store.append(tx, appends, SYSTEM_META(at));
      const breakers = await writeFoldsAndBreakers(tx, this.s, folds, runs, options.breakers?.policy);
      if (folds.length === 0) return { ...nothingDecided(fenced), breakers };
      // The next change of each message whose delivery ended may go now.
      const ended = folds.filter((f) => f.state !== 'pending').map((f) => byId.get(f.delivery_id)?.umid as string);
      const held = await this.order.releaseNext(tx, [...new Set(ended)], offer);
      // A re-driven change is pending again: it and every later change of its message wait behind
      // the earliest pending one, as if it had never ended (those already held finish as they are).
      const redriven = folds.filter((f) => f.state === 'pending' && byId.get(f.delivery_id)?.state !== 'pending').map((f) => byId.get(f.delivery_id)?.umid as string);
      await this.order.holdBehindEarlier(tx, [...new Set(redriven)]);
      return { decided: folds.map((f) => f.delivery_id), held, fenced, breakers };
    });
  }
}
