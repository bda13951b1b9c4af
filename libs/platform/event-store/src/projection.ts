import type { DataSource } from 'typeorm';
import type { Logger } from 'pino';
import type { EventStore } from './event-store';
import { EventSubscription, type EventHandler } from './event-subscription';
import { lockKeys, subscriptionLockKey } from './schema-locks';
import { quoteSchema, type SqlExecutor } from './sql-executor';
import type { StoredEvent } from './stored-event';

/**
 * A read model: a pure function of the log, written with its checkpoint in one transaction.
 * It must be idempotent per event (the same event twice leaves the same rows) and must not read
 * the clock, so that a replay from position 0 gives identical rows.
 */
export interface Projection extends EventHandler {
  /** Tables (in the service's schema) that hold nothing but this projection's rows. */
  readonly tables: readonly string[];
}

/**
 * Empties a projection's tables, resets its checkpoint and rebuilds it from the whole log, all in
 * one transaction under the subscription's lock: the running service waits, and nobody ever sees
 * a half-built read model.
 */
export async function replayProjection(
  dataSource: DataSource,
  store: EventStore,
  projection: Projection,
  logger: Logger,
): Promise<number> {
  const s = quoteSchema(store.schema);
  const batchSize = 5000;
  const subscription = new EventSubscription(dataSource, store, projection, logger, { batchSize });
  return dataSource.transaction(async (tx) => {
    await lockKeys(tx, store.schema, [subscriptionLockKey(projection.name)]);
    for (const table of projection.tables) await tx.query(`TRUNCATE ${s}.${quoteSchema(table)}`);
    await tx.query(`DELETE FROM ${s}.subscription_checkpoints WHERE subscription = $1`, [projection.name]);
    let total = 0;
    for (;;) {
      const handled = await subscription.processIn(tx);
      total += handled;
      if (handled < batchSize) return total;
    }
  });
}

/**
 * Several read models fed by one follower: the log is read (and each event body parsed) once,
 * and all of them move forward in one transaction with one checkpoint. Each still sees only
 * the event types it declares.
 */
export class ProjectionGroup implements Projection {
  readonly tables: readonly string[];
  readonly types: readonly string[] | undefined;

  constructor(
    readonly name: string,
    private readonly members: readonly Projection[],
  ) {
    this.tables = members.flatMap((m) => m.tables);
    this.types = members.every((m) => m.types) ? [...new Set(members.flatMap((m) => m.types ?? []))] : undefined;
  }

  async handle(events: readonly StoredEvent[], db: SqlExecutor): Promise<void> {
    for (const member of this.members) {
      const wanted = member.types ? events.filter((e) => member.types?.includes(e.type)) : events;
      if (wanted.length > 0) await member.handle(wanted, db);
    }
  }
}
