import type { DataSource } from 'typeorm';
import type { Logger } from 'pino';
import { FailureStreak } from '@seed/platform-logging';
import type { EventStore } from './event-store';
import { makeLockKeys, subscriptionLockKey, tryLockKey } from './schema-locks';
import { quoteSchema, type SqlExecutor } from './sql-executor';
import { EVENT_PLACE_COLUMNS, OCCURRED_AT_ISO, type EventRow, type StoredEvent } from './stored-event';
import { WakeablePause } from './wakeable-pause';

/** Something that follows a service's whole log in order: a projection, the outbox relay, a reactor. */
export interface EventHandler {
  /** Stable name; the checkpoint is kept under it. */
  readonly name: string;
  /**
   * The event types it handles; others are skipped (their bodies are not even read). Absent:
   * every event. A projection that needs one type in a hundred reads a hundredth of the bytes.
   */
  readonly types?: readonly string[];
  /**
   * `text`: each event's `data` arrives as the JSON text it is stored as, not parsed. For a handler
   * that only passes bodies on (the outbox relay), parsing them and serialising them again was
   * pure cost. Absent: parsed.
   */
  readonly bodies?: 'parsed' | 'text';
  /**
   * Handles events in log order. Runs inside the transaction that then advances the checkpoint,
   * so a projection's rows and its checkpoint commit together. Throwing rolls both back and the
   * same events come again after a pause.
   */
  handle(events: readonly StoredEvent[], db: SqlExecutor): Promise<void>;
}

export interface SubscriptionOptions {
  batchSize?: number;
  /**
   * Pause after a poll that found nothing; it doubles while the log stays quiet, up to maxIdleMs.
   * A local append wakes the follower at once, so the longer pause only delays events appended by
   * another replica, and spares the database twenty polls a second per follower when idle.
   */
  idleMs?: number;
  maxIdleMs?: number;
  /** Pause after a failed batch before the same events are tried again. */
  retryMs?: number;
  /**
   * After a batch smaller than batchSize, wait this long (local appends do not cut it short) before
   * reading again, so that the next batch gathers what is appended meanwhile. For a follower whose
   * cost is per batch rather than per event: the outbox relay's Kafka requests cost far less an
   * event when larger (docs/adr/0103-outbox-relay-lingers.md). 0 (the default): read again as
   * soon as woken.
   */
  lingerMs?: number;
}

/**
 * Reads the event log in an order that never skips an event: by appending transaction, and only
 * transactions older than every one still running (`pg_snapshot_xmin`). A bigserial alone is not
 * enough, since a transaction that took position 10 can commit after one that took 11.
 * An advisory lock makes one replica at a time the reader of each subscription.
 */
/** Another follower moved the checkpoint while this one handled the same batch: this one rolls back. */
export class CheckpointMoved extends Error {
  override readonly name = 'CheckpointMoved';

  constructor(subscription: string) {
    super(`the checkpoint of ${subscription} moved while its batch was handled`);
  }
}

export class EventSubscription {
  private running = false;
  private loop: Promise<void> | undefined;
  private readonly pauser = new WakeablePause();
  private readonly s: string;
  private readonly batchSize: number;
  private readonly idleMs: number;
  private readonly maxIdleMs: number;
  private readonly retryMs: number;
  private readonly lingerMs: number;
  private readonly readBatch: string;
  private readonly failures: FailureStreak;
  private lockMade = false;

  constructor(
    private readonly dataSource: DataSource,
    private readonly store: EventStore,
    private readonly handler: EventHandler,
    private readonly logger: Logger,
    options: SubscriptionOptions = {},
  ) {
    this.s = quoteSchema(store.schema);
    this.batchSize = options.batchSize ?? 2000;
    this.idleMs = options.idleMs ?? 50;
    this.maxIdleMs = Math.max(this.idleMs, options.maxIdleMs ?? 1000);
    this.retryMs = options.retryMs ?? 1000;
    this.lingerMs = options.lingerMs ?? 0;
    this.readBatch = readBatchQuery(this.s, handler.bodies ?? 'parsed');
    this.failures = new FailureStreak(logger, 'subscription batch failed; retrying');
  }

  get name(): string {
    return this.handler.name;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wake();
    await this.loop;
  }

  /** Called after a local commit so that followers do not wait for the next poll. */
  wake(): void {
    this.pauser.wake();
  }

  /**
   * Called after a local commit of events of these types: wakes the follower only if it handles
   * one of them. One that does not passes over them at its next poll or wake (without reading
   * their bodies); waking it for them would cost a transaction that finds nothing to do.
   */
  wakeFor(types: readonly string[]): void {
    const wanted = this.handler.types;
    if (!wanted || types.some((type) => wanted.includes(type))) this.wake();
  }

  /** Processes until the log holds nothing more for this subscription; returns the event count. */
  async catchUp(): Promise<number> {
    let total = 0;
    for (;;) {
      const handled = await this.processBatch();
      if (handled === null) {
        await this.pauser.wait(this.idleMs); // another replica holds the lock; wait for it to let go
        continue;
      }
      total += handled;
      if (handled < this.batchSize) return total;
    }
  }

  /** One batch: the number of events handled, or null when another replica holds the lock (or handled it first). */
  async processBatch(): Promise<number | null> {
    if (!this.lockMade) {
      await makeLockKeys(this.dataSource, this.store.schema, [subscriptionLockKey(this.handler.name)]);
      this.lockMade = true;
    }
    try {
      return await this.dataSource.transaction(async (tx) => {
        // An idle poll takes no lock: a row lock is a write (a transaction id, a commit flushed to
        // disk), and an idle follower polls every second. Only a poll that finds events locks.
        if (!(await this.anyEventAfterCheckpoint(tx))) return 0;
        if (!(await tryLockKey(tx, this.store.schema, subscriptionLockKey(this.handler.name)))) return null;
        return this.processIn(tx);
      });
    } catch (error) {
      if (error instanceof CheckpointMoved) return null;
      throw error;
    }
  }

  private async checkpointIn(tx: SqlExecutor): Promise<{ transaction_id: string; global_position: string } | undefined> {
    const [checkpoint] = await tx.query(
      `SELECT transaction_id::text AS transaction_id, global_position::text AS global_position
         FROM ${this.s}.subscription_checkpoints WHERE subscription = $1`,
      [this.handler.name],
    );
    return checkpoint;
  }

  /** Whether the log holds an event past this subscription's checkpoint that it may read now (one row read, no lock). */
  private async anyEventAfterCheckpoint(tx: SqlExecutor): Promise<boolean> {
    const checkpoint = await this.checkpointIn(tx);
    const rows = (await tx.query(this.readBatch, [checkpoint?.transaction_id ?? '0', checkpoint?.global_position ?? '0', 1, this.handler.types ?? null])) as unknown[];
    return rows.length > 0;
  }

  /** One batch inside a transaction that already holds this subscription's lock (replays use it). */
  async processIn(tx: SqlExecutor): Promise<number> {
    // Read again under the lock: another replica may have moved it since the look before.
    const checkpoint = await this.checkpointIn(tx);
    const rows: (EventRow & { wanted: boolean })[] = await tx.query(this.readBatch, [
      checkpoint?.transaction_id ?? '0',
      checkpoint?.global_position ?? '0',
      this.batchSize,
      this.handler.types ?? null,
    ]);
    const last = rows[rows.length - 1];
    if (!last) return 0;
    const handled = rows.filter((row) => row.wanted);
    if (handled.length > 0) await this.handler.handle(handled.map((row) => this.store.toStoredEvent(row, this.handler.bodies)), tx);
    // Moved on only from where this batch began: a follower that read the same checkpoint and
    // committed first (one not excluded by this lock: a replica of the release before, which took
    // an advisory lock) makes this batch roll back, handled by nobody twice.
    const moved = (await tx.query(
      `INSERT INTO ${this.s}.subscription_checkpoints (subscription, transaction_id, global_position, updated_at)
       VALUES ($1, $2::xid8, $3, now())
       ON CONFLICT (subscription) DO UPDATE
         SET transaction_id = EXCLUDED.transaction_id, global_position = EXCLUDED.global_position, updated_at = now()
         WHERE subscription_checkpoints.global_position IS NOT DISTINCT FROM $4::bigint
       RETURNING 1`,
      [this.handler.name, String(last.transaction_id), String(last.global_position), checkpoint?.global_position ?? null],
    )) as unknown[];
    if (moved.length === 0) throw new CheckpointMoved(this.handler.name);
    return rows.length;
  }

  private async run(): Promise<void> {
    let idle = this.idleMs;
    while (this.running) {
      let handled: number | null = 0;
      try {
        handled = await this.processBatch();
        this.failures.succeeded({ subscription: this.handler.name });
      } catch (error) {
        this.failures.failed(error, { subscription: this.handler.name });
        await this.pauser.wait(this.retryMs);
        continue;
      }
      if (handled !== null && handled >= this.batchSize) continue;
      if (handled && this.lingerMs > 0) {
        await new Promise((resolve) => setTimeout(resolve, this.lingerMs));
        continue;
      }
      // Quiet: poll less and less often until something happens (or a local append wakes it).
      idle = handled ? this.idleMs : Math.min(idle * 2, this.maxIdleMs);
      if (await this.pauser.wait(idle)) idle = this.idleMs;
    }
  }
}

/**
 * The next batch after a checkpoint ($1, $2), at most $3 events. ORDER BY names the table's
 * columns: a bare `transaction_id` would mean the text alias of the select list and sort "10"
 * before "9". Events of types other than $4 come back with nothing but their place in the log (no
 * body, metadata or time to parse), so the checkpoint still moves past them without the cost of
 * parsing what it skips (docs/adr/0036-followers-read-only-what-they-handle.md).
 */
function readBatchQuery(schema: string, bodies: 'parsed' | 'text'): string {
  const wanted = '($4::text[] IS NULL OR type = ANY($4::text[]))';
  return `SELECT ${EVENT_PLACE_COLUMNS},
                 CASE WHEN ${wanted} THEN ${bodies === 'text' ? 'data::text' : 'data'} END AS data,
                 CASE WHEN ${wanted} THEN metadata END AS metadata,
                 CASE WHEN ${wanted} THEN ${OCCURRED_AT_ISO} END AS occurred_at,
                 ${wanted} AS wanted
            FROM ${schema}.events
           WHERE (transaction_id, global_position) > ($1::xid8, $2::bigint)
             AND transaction_id < pg_snapshot_xmin(pg_current_snapshot())
           ORDER BY events.transaction_id, events.global_position
           LIMIT $3`;
}
