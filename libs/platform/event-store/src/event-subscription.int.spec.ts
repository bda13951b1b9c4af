import { randomUUID } from 'node:crypto';
import type { DataSource, EntityManager } from 'typeorm';
import { dropSchema, eventually, openTestDataSource, testLogger, uniqueName } from '@seed/platform-testing';
import { EventStore, type AppendToStream } from './event-store';
import { eventStoreSchema } from './event-store.migrations';
import { EventSubscription, type EventHandler } from './event-subscription';
import { runMigrations } from './migration-runner';
import type { SqlExecutor } from './sql-executor';
import type { StoredEvent } from './stored-event';

const schema = uniqueName('it_subscription');
const store = new EventStore(schema);
const logger = testLogger();
let ds: DataSource;

const metadata = () => ({ correlationId: randomUUID(), causationId: null, occurredAt: new Date().toISOString() });
const ticks = (...ns: number[]) => ns.map((n) => ({ type: 'Ticked', schemaVersion: 1, data: { n } }));
const one = (streamId: string, expectedVersion: number, n: number): AppendToStream => ({ streamId, expectedVersion, events: ticks(n) });

/** Records what it is given; `fail` decides per call whether to throw after writing a row. */
class RecordingHandler implements EventHandler {
  readonly batches: string[][] = [];
  constructor(
    readonly name: string,
    private readonly fail: (call: number) => boolean = () => false,
  ) {}
  get eventIds(): string[] {
    return this.batches.flat();
  }
  async handle(events: readonly StoredEvent[], db: SqlExecutor): Promise<void> {
    this.batches.push(events.map((e) => e.eventId));
    await db.query(`INSERT INTO "${schema}".side_effects (handler, event_id) SELECT $1, unnest($2::uuid[])`, [
      this.name,
      events.map((e) => e.eventId),
    ]);
    if (this.fail(this.batches.length)) throw new Error('handler failed');
  }
}

const newName = () => `handler-${randomUUID()}`;
const logOrder = async (): Promise<string[]> =>
  (await ds.query(`SELECT event_id FROM "${schema}".events ORDER BY global_position`)).map((r: { event_id: string }) => r.event_id);
const checkpointOf = async (name: string): Promise<string | null> =>
  (await ds.query(`SELECT global_position::text AS p FROM "${schema}".subscription_checkpoints WHERE subscription = $1`, [name]))[0]?.p ??
  null;
const sideEffects = async (name: string): Promise<number> =>
  (await ds.query(`SELECT count(*)::int AS n FROM "${schema}".side_effects WHERE handler = $1`, [name]))[0].n;

/** Catches up until the handler has seen `total` events (another session's open transaction may hold the log back). */
async function catchUpUntil(subscription: EventSubscription, handler: RecordingHandler, total: number): Promise<void> {
  await eventually(async () => {
    await subscription.catchUp();
    return handler.eventIds.length >= total ? true : undefined;
  });
  expect(handler.eventIds).toHaveLength(total);
}

beforeAll(async () => {
  ds = await openTestDataSource(8);
  await runMigrations(ds, schema, [
    ...eventStoreSchema,
    { id: '001-side-effects', statements: (s) => [`CREATE TABLE ${s}.side_effects (handler text NOT NULL, event_id uuid NOT NULL)`] },
  ]);
});

afterAll(async () => {
  await dropSchema(ds, schema);
  await ds.destroy();
});

describe('EventSubscription', () => {
  it('hands every event to the handler once, in log order, in batches, and resumes from its checkpoint', async () => {
    const streams = [`a-${randomUUID()}`, `b-${randomUUID()}`, `c-${randomUUID()}`];
    for (let n = 0; n < 12; n++) await store.append(ds, [one(streams[n % 3]!, Math.floor(n / 3), n)], metadata());
    await store.append(ds, streams.map((s) => one(s, 4, 100)), metadata());
    const handler = new RecordingHandler(newName());
    const subscription = new EventSubscription(ds, store, handler, logger, { batchSize: 5 });

    await catchUpUntil(subscription, handler, 15);
    expect(handler.eventIds).toEqual(await logOrder());
    // Batches of at most batchSize (another session's open transaction may split one further).
    expect(handler.batches.length).toBeGreaterThanOrEqual(3);
    expect(handler.batches.every((b) => b.length > 0 && b.length <= 5)).toBe(true);

    await store.append(ds, [one(streams[0]!, 5, 200)], metadata());
    await catchUpUntil(subscription, handler, 16);
    expect(await subscription.catchUp()).toBe(0);
    expect(handler.eventIds).toEqual(await logOrder());
    expect(await checkpointOf(handler.name)).toBe((await ds.query(`SELECT max(global_position)::text AS p FROM "${schema}".events`))[0].p);
  });

  it('does not skip an event whose transaction took an earlier position but committed later', async () => {
    const handler = new RecordingHandler(newName());
    const subscription = new EventSubscription(ds, store, handler, logger);
    await subscription.catchUp();
    const slow = ds.createQueryRunner();
    try {
      await slow.startTransaction();
      const [early] = await store.append(slow, [one(`slow-${randomUUID()}`, 0, 1)], metadata());
      const [late] = await store.append(ds, [one(`fast-${randomUUID()}`, 0, 2)], metadata());
      // The trap: `late` is committed and numbered after `early`. A reader that kept only
      // "last global_position seen" would take `late` now and never look below it again.
      expect(BigInt(early!.globalPosition)).toBeLessThan(BigInt(late!.globalPosition));

      const before = handler.eventIds.length;
      expect(await subscription.catchUp()).toBe(0);
      await slow.commitTransaction();

      await catchUpUntil(subscription, handler, before + 2);
      expect(handler.eventIds.slice(before)).toEqual([early!.eventId, late!.eventId]);
    } finally {
      if (slow.isTransactionActive) await slow.rollbackTransaction();
      await slow.release();
    }
  });

  it('rolls back the handler writes and the checkpoint when the handler throws, and delivers the same events again', async () => {
    const streamId = `retry-${randomUUID()}`;
    const [appended] = await store.append(ds, [{ streamId, expectedVersion: 0, events: ticks(1, 2, 3) }], metadata());
    // Another test file's open transaction can hold the log back: wait until these events can be
    // read, so that the failing first batch and its retries all hold the same events.
    await eventually(async () =>
      (await ds.query('SELECT pg_snapshot_xmin(pg_current_snapshot()) > $1::xid8 AS visible', [appended!.transactionId]))[0].visible ? true : undefined,
    );
    const handler = new RecordingHandler(newName(), (call) => call <= 2);
    const subscription = new EventSubscription(ds, store, handler, logger);

    await expect(subscription.catchUp()).rejects.toThrow('handler failed');
    expect(await checkpointOf(handler.name)).toBeNull();
    expect(await sideEffects(handler.name)).toBe(0);

    // The running loop retries after retryMs until the handler succeeds.
    const running = new EventSubscription(ds, store, handler, logger, { retryMs: 20, idleMs: 20 });
    running.start();
    try {
      await eventually(async () => ((await checkpointOf(handler.name)) !== null ? true : undefined));
    } finally {
      await running.stop();
    }
    const [first, second, third] = handler.batches;
    expect(second).toEqual(first);
    expect(third).toEqual(first);
    expect(await sideEffects(handler.name)).toBe((await logOrder()).length);
  });

  it('is woken only by appends of the types it handles; it passes over the others at its next poll', async () => {
    const handler = Object.assign(new RecordingHandler(newName()), { types: ['Wanted'] });
    // Counts its polls (one transaction each). What an append shows it also depends on other
    // sessions' open transactions, so the test watches the polls a wake causes, not the events.
    let polls = 0;
    const counted = new Proxy(ds, {
      get: (target, property, receiver) =>
        property === 'transaction'
          ? (work: (manager: EntityManager) => Promise<unknown>) => {
              polls++;
              return target.transaction(work);
            }
          : Reflect.get(target, property, receiver),
    });
    // Polls 5-10 s apart when idle: a poll within a second is one a wake caused.
    const subscription = new EventSubscription(counted, store, handler, logger, { idleMs: 5000, maxIdleMs: 10_000 });
    subscription.start();
    try {
      await eventually(async () => (polls >= 1 ? true : undefined));
      await new Promise((r) => setTimeout(r, 200));
      const before = polls;
      await store.append(ds, [one(`t-${randomUUID()}`, 0, 1)], metadata());
      subscription.wakeFor(['Ticked']);
      await new Promise((r) => setTimeout(r, 500));
      expect(polls).toBe(before);

      await store.append(ds, [{ streamId: `w-${randomUUID()}`, expectedVersion: 0, events: [{ type: 'Wanted', schemaVersion: 1, data: {} }] }], metadata());
      subscription.wakeFor(['Ticked', 'Wanted']);
      await eventually(async () => (polls > before ? true : undefined), 1000);
    } finally {
      await subscription.stop();
    }
    // Only the wanted event reaches the handler; the others were passed over.
    await eventually(async () => {
      await subscription.catchUp();
      return handler.eventIds.length > 0 ? true : undefined;
    });
    const [last] = (await logOrder()).slice(-1);
    expect(handler.eventIds).toEqual([last]);
  });

  it('lingers after a partial batch: it reads again only lingerMs later, however often a local append wakes it', async () => {
    const handledAt = new Map<string, number>();
    const handler = new RecordingHandler(newName());
    const record = handler.handle.bind(handler);
    handler.handle = async (events, db) => {
      for (const e of events) handledAt.set(e.eventId, Date.now());
      return record(events, db);
    };
    const lingerMs = 600;
    const subscription = new EventSubscription(ds, store, handler, logger, { lingerMs });
    await subscription.catchUp();
    subscription.start();
    try {
      const [first] = await store.append(ds, [one(`l-${randomUUID()}`, 0, 1)], metadata());
      subscription.wake();
      const firstAt = await eventually(async () => handledAt.get(first!.eventId), 15_000, 10);
      // Appended and announced while it lingers: read no sooner than lingerMs after the batch before
      // (another session's open transaction can only make them later).
      const later: StoredEvent[] = [];
      for (let n = 2; n <= 3; n++) {
        later.push(...(await store.append(ds, [one(`l-${randomUUID()}`, 0, n)], metadata())));
        subscription.wake();
      }
      const laterAt = await eventually(async () => {
        const at = later.map((e) => handledAt.get(e.eventId));
        return at.every((t) => t !== undefined) ? (at as number[]) : undefined;
      });
      for (const at of laterAt) expect(at - firstAt).toBeGreaterThanOrEqual(lingerMs);
    } finally {
      await subscription.stop();
    }
  });

  it('lets one of two instances with the same name hold the log at a time', async () => {
    const name = newName();
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let entered: () => void = () => undefined;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    const firstSaw: string[] = [];
    const blocking: EventHandler = {
      name,
      handle: async (events) => {
        firstSaw.push(...events.map((e) => e.eventId));
        entered();
        await gate;
      },
    };
    const other = new RecordingHandler(name);
    const first = new EventSubscription(ds, store, blocking, logger);
    const second = new EventSubscription(ds, store, other, logger);
    await store.append(ds, [one(`lock-${randomUUID()}`, 0, 1)], metadata());

    const firstBatch = first.processBatch();
    try {
      await inside;
      expect(await second.processBatch()).toBeNull();
      expect(other.batches).toEqual([]);
    } finally {
      release();
    }
    expect(await firstBatch).toBeGreaterThan(0);
    // The first may not have seen the newest event yet (another test file's open transaction can
    // hold the log back); the second takes over from the first's checkpoint and reads the rest.
    const log = await logOrder();
    await catchUpUntil(second, other, log.length - firstSaw.length);
    expect([...firstSaw, ...other.eventIds]).toEqual(log);
  });

  it('never runs two same-named instances concurrently, and together they handle each event exactly once', async () => {
    const name = newName();
    const handled: string[] = [];
    let inFlight = 0;
    let overlaps = 0;
    const handler = (): EventHandler => ({
      name,
      handle: async (events, db) => {
        if (++inFlight > 1) overlaps++;
        await db.query('SELECT pg_sleep(0.005)'); // widen the window an overlap would need
        handled.push(...events.map((e) => e.eventId));
        inFlight--;
      },
    });
    const instances = [1, 2].map(() => new EventSubscription(ds, store, handler(), logger, { batchSize: 7, idleMs: 5 }));
    const streamId = `many-${randomUUID()}`;
    instances.forEach((s) => s.start());
    try {
      for (let v = 0; v < 60; v += 4) {
        await store.append(ds, [{ streamId, expectedVersion: v, events: ticks(1, 2, 3, 4) }], metadata());
        instances.forEach((s) => s.wake());
      }
      const all = await logOrder();
      await eventually(async () => (handled.length >= all.length ? true : undefined));
      expect(handled).toEqual(all);
    } finally {
      await Promise.all(instances.map((s) => s.stop()));
    }
    expect(overlaps).toBe(0);
  });

  it("is not halted by another role: an advisory lock on its old key is nothing to it, and its lock row is out of a stranger's reach", async () => {
    const name = newName();
    const handler = new RecordingHandler(name);
    const subscription = new EventSubscription(ds, store, handler, logger);
    await store.append(ds, [one(`advisory-${randomUUID()}`, 0, 1)], metadata());
    const role = `it_stranger_${randomUUID().slice(0, 8)}`;
    await ds.query(`CREATE ROLE ${role} LOGIN PASSWORD 'stranger'`);
    const stranger = ds.createQueryRunner();
    try {
      // What any role connected to the database could do to the release before: hold the
      // follower's advisory lock in an open transaction.
      await stranger.connect();
      await stranger.startTransaction();
      await stranger.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`${schema}:${name}`]);
      expect(await subscription.processBatch()).toBeGreaterThan(0);
      await stranger.rollbackTransaction();
      // And as a role of its own, without rights on the schema, it cannot lock the row instead.
      await stranger.query(`SET ROLE ${role}`);
      await expect(stranger.query(`SELECT key FROM "${schema}".locks WHERE key = $1 FOR UPDATE`, [`subscription:${name}`])).rejects.toThrow(/permission denied/);
      await stranger.startTransaction();
      await expect(stranger.query(`LOCK TABLE "${schema}".schema_migrations IN SHARE ROW EXCLUSIVE MODE`)).rejects.toThrow(/permission denied/);
      await stranger.rollbackTransaction();
    } finally {
      await stranger.query('RESET ROLE').catch(() => undefined);
      await stranger.release();
      await ds.query(`DROP ROLE ${role}`);
    }
  });

  it('rolls back a batch that a follower outside its lock (a replica of the release before) handled first: each event once', async () => {
    const name = newName();
    const handled: string[] = [];
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let entered: () => void = () => undefined;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    const slow: EventHandler = {
      name,
      handle: async (events) => {
        entered();
        await gate;
        handled.push(...events.map((e) => e.eventId));
      },
    };
    const fast = new RecordingHandler(name);
    const first = new EventSubscription(ds, store, slow, logger);
    await store.append(ds, [one(`outside-${randomUUID()}`, 0, 1)], metadata());
    const firstBatch = first.processBatch();
    await inside;
    // Another follower that does not take this lock, as a replica still on advisory locks would not.
    const outside = new EventSubscription(ds, store, fast, logger);
    await ds.transaction((tx) => outside.processIn(tx));
    release();
    expect(await firstBatch).toBeNull();
    expect(fast.eventIds.length).toBeGreaterThan(0);
    // The slow one's handler ran, but its transaction rolled back: its checkpoint is the fast one's.
    expect(await checkpointOf(name)).toBe((await ds.query(`SELECT max(global_position)::text AS p FROM "${schema}".events WHERE event_id = ANY($1::uuid[])`, [fast.eventIds]))[0].p);
    expect(await sideEffects(name)).toBe(fast.eventIds.length);
  });

  it('orders transactions by number, not by their text (transaction 9 before transaction 10)', async () => {
    const own = uniqueName('it_subscription_xid');
    await runMigrations(ds, own, eventStoreSchema);
    try {
      // Transaction ids are assigned by Postgres; old ones are written here directly, as a log
      // that has lived through xid 9 and 10 (or 999 and 1000) holds them.
      for (const [xid, n] of [['10', 2], ['9', 1]] as const) {
        await ds.query(
          `INSERT INTO "${own}".events (transaction_id, event_id, stream_id, stream_position, type, schema_version, data, metadata, occurred_at)
           VALUES ($1::xid8, $2, $3, 1, 'Ticked', 1, $4, '{}', now())`,
          [xid, randomUUID(), `xid-${n}`, JSON.stringify({ n })],
        );
      }
      const seen: number[] = [];
      const handler: EventHandler = { name: newName(), handle: async (events) => void seen.push(...events.map((e) => (e.data as { n: number }).n)) };
      await new EventSubscription(ds, new EventStore(own), handler, logger).catchUp();
      expect(seen).toEqual([1, 2]);
    } finally {
      await dropSchema(ds, own);
    }
  });
});
