import { randomUUID } from 'node:crypto';
import type { DataSource, QueryRunner } from 'typeorm';
import { dropSchema, eventually, openTestDataSource, uniqueName } from '@seed/platform-testing';
import { ConcurrencyError, EventStore, type AppendMetadata } from './event-store';
import { eventStoreSchema } from './event-store.migrations';
import { runMigrations } from './migration-runner';
import type { Upcaster } from './upcaster';

const schema = uniqueName('it_event_store');
const store = new EventStore(schema);
let ds: DataSource;

const meta = (correlationId: string = randomUUID()): AppendMetadata => ({
  correlationId,
  causationId: `cmd-${correlationId}`,
  traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
  occurredAt: '2024-05-06T07:08:09.123Z',
});
const event = (n: number) => ({ type: 'CounterIncremented', schemaVersion: 1, data: { n } });
const count = async (): Promise<number> =>
  Number((await ds.query(`SELECT count(*)::int AS n FROM "${schema}".events`))[0].n);

beforeAll(async () => {
  ds = await openTestDataSource(8);
  await runMigrations(ds, schema, eventStoreSchema);
});

afterAll(async () => {
  await dropSchema(ds, schema);
  await ds.destroy();
});

describe('EventStore', () => {
  it('appends a stream and reads back the full envelope in stream order', async () => {
    const streamId = `counter-${randomUUID()}`;
    const m = meta('corr-1');
    const appended = await store.append(ds, [{ streamId, expectedVersion: 0, events: [event(1), event(2)] }], m);
    const more = await store.append(ds, [{ streamId, expectedVersion: 2, events: [event(3)] }], { ...m, causationId: null, traceparent: null });

    const read = await store.readStream(ds, streamId);
    expect(read).toEqual([...appended, ...more]);
    expect(read.map((e) => [e.streamPosition, e.data])).toEqual([[1, { n: 1 }], [2, { n: 2 }], [3, { n: 3 }]]);
    const [first, second, third] = read;
    expect(first).toMatchObject({
      type: 'CounterIncremented',
      schemaVersion: 1,
      streamId,
      occurredAt: '2024-05-06T07:08:09.123Z',
      correlationId: 'corr-1',
      causationId: 'cmd-corr-1',
      traceparent: m.traceparent,
    });
    expect(third).toMatchObject({ correlationId: 'corr-1', causationId: null, traceparent: null });
    expect(new Set(read.map((e) => e.eventId)).size).toBe(3);
    for (const e of read) expect(e.eventId).toMatch(/^[0-9a-f-]{36}$/);
    // Global positions grow along the log; one append is one transaction.
    expect(BigInt(first!.globalPosition)).toBeLessThan(BigInt(second!.globalPosition));
    expect(BigInt(second!.globalPosition)).toBeLessThan(BigInt(third!.globalPosition));
    expect(first!.transactionId).toBe(second!.transactionId);
    expect(third!.transactionId).not.toBe(first!.transactionId);
  });

  it('gives a stream its own correlation, cause and trace when it names them, the append metadata otherwise', async () => {
    const [a, b, c] = [1, 2, 3].map(() => `counter-${randomUUID()}`) as [string, string, string];
    const m = meta('corr-append');
    const appended = await store.append(
      ds,
      [
        { streamId: a, expectedVersion: 0, events: [event(1)] },
        { streamId: b, expectedVersion: 0, events: [event(1)], correlationId: 'corr-b', causationId: 'event-b', traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' },
        { streamId: c, expectedVersion: 0, events: [event(1)], causationId: null },
      ],
      m,
    );

    const read = await store.readStreams(ds, [a, b, c]);
    const expected = [
      { correlationId: 'corr-append', causationId: m.causationId, traceparent: m.traceparent },
      { correlationId: 'corr-b', causationId: 'event-b', traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' },
      { correlationId: 'corr-append', causationId: null, traceparent: m.traceparent },
    ];
    expect([a, b, c].map((id) => read.get(id)?.[0])).toEqual(expected.map((e) => expect.objectContaining(e)));
    expect(appended).toEqual(expected.map((e) => expect.objectContaining(e)));
  });

  it('refuses a stale writer with ConcurrencyError and keeps the winner', async () => {
    const streamId = `counter-${randomUUID()}`;
    await store.append(ds, [{ streamId, expectedVersion: 0, events: [event(1)] }], meta());
    const seenByBoth = (await store.readStream(ds, streamId)).length;

    await store.append(ds, [{ streamId, expectedVersion: seenByBoth, events: [event(2)] }], meta());
    await expect(store.append(ds, [{ streamId, expectedVersion: seenByBoth, events: [event(99)] }], meta())).rejects.toBeInstanceOf(
      ConcurrencyError,
    );
    // "The stream must not exist yet" is a version too.
    await expect(store.append(ds, [{ streamId, expectedVersion: 0, events: [event(99)] }], meta())).rejects.toBeInstanceOf(
      ConcurrencyError,
    );
    expect((await store.readStream(ds, streamId)).map((e) => e.data)).toEqual([{ n: 1 }, { n: 2 }]);
  });

  it('refuses a writer whose version is ahead of the stream (which would leave a gap), and writes none of its streams', async () => {
    const streamId = `counter-${randomUUID()}`;
    const other = `counter-${randomUUID()}`;
    await store.append(ds, [{ streamId, expectedVersion: 0, events: [event(1)] }], meta());
    await expect(
      store.append(
        ds,
        [
          { streamId: other, expectedVersion: 0, events: [event(7)] },
          { streamId, expectedVersion: 3, events: [event(4)] },
        ],
        meta(),
      ),
    ).rejects.toBeInstanceOf(ConcurrencyError);
    expect((await store.readStream(ds, streamId)).map((e) => e.data)).toEqual([{ n: 1 }]);
    expect(await store.readStream(ds, other)).toEqual([]);
    // A stream expected to exist that does not is refused too.
    await expect(store.append(ds, [{ streamId: `counter-${randomUUID()}`, expectedVersion: 2, events: [event(1)] }], meta())).rejects.toBeInstanceOf(
      ConcurrencyError,
    );
  });

  it('lets exactly one of two open transactions that saw the same version win', async () => {
    const streamId = `counter-${randomUUID()}`;
    await store.append(ds, [{ streamId, expectedVersion: 0, events: [event(1)] }], meta());
    const a = ds.createQueryRunner();
    const b = ds.createQueryRunner();
    try {
      await a.startTransaction();
      await b.startTransaction();
      const bPid = await backendPid(b);
      // Both check the version before either commits, so only the database can stop the second.
      await store.append(a, [{ streamId, expectedVersion: 1, events: [event(2)] }], meta());
      const bAppend = store.append(b, [{ streamId, expectedVersion: 1, events: [event(3)] }], meta());
      bAppend.catch(() => undefined);
      await eventually(async () => ((await isWaitingOnLock(bPid)) ? true : undefined));
      await a.commitTransaction();
      await expect(bAppend).rejects.toBeInstanceOf(ConcurrencyError);
      await b.rollbackTransaction();
    } finally {
      await a.release();
      await b.release();
    }
    expect((await store.readStream(ds, streamId)).map((e) => e.data)).toEqual([{ n: 1 }, { n: 2 }]);
  });

  it('lets exactly one of many racing transactions append at the same version', async () => {
    const streamId = `counter-${randomUUID()}`;
    await store.append(ds, [{ streamId, expectedVersion: 0, events: [event(0)] }], meta());
    const results = await Promise.allSettled(
      [1, 2, 3, 4, 5].map((n) => ds.transaction((tx) => store.append(tx, [{ streamId, expectedVersion: 1, events: [event(n)] }], meta()))),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(ConcurrencyError);
    expect(await store.readStream(ds, streamId)).toHaveLength(2);
  });

  it('appends 10,000 new streams in one call, and writes nothing when one of them conflicts', async () => {
    const before = await count();
    const batch = Array.from({ length: 10_000 }, (_, i) => ({
      streamId: `message-${randomUUID()}`,
      expectedVersion: 0,
      events: [event(i)],
    }));
    const appended = await store.append(ds, batch, meta());
    expect(appended).toHaveLength(10_000);
    expect(appended.every((e, i) => e.streamId === batch[i]!.streamId && e.streamPosition === 1)).toBe(true);
    expect(await count()).toBe(before + 10_000);

    const existing = batch[1234]!.streamId;
    const fresh = Array.from({ length: 10_000 }, (_, i) => ({ streamId: `message-${randomUUID()}`, expectedVersion: 0, events: [event(i)] }));
    // A stale version checked before the insert…
    const staleChecked = [...fresh.slice(0, 5000), { streamId: existing, expectedVersion: 2, events: [event(-1)] }];
    await expect(store.append(ds, staleChecked, meta())).rejects.toBeInstanceOf(ConcurrencyError);
    // …and a "new" stream that exists, caught by the unique constraint in the middle of the insert.
    const conflictingNew = [...fresh.slice(0, 5000), { streamId: existing, expectedVersion: 0, events: [event(-1)] }, ...fresh.slice(5000)];
    await expect(store.append(ds, conflictingNew, meta())).rejects.toBeInstanceOf(ConcurrencyError);

    expect(await count()).toBe(before + 10_000);
    const untouched = await store.readStreams(ds, [existing, fresh[0]!.streamId, fresh[9999]!.streamId]);
    expect([...untouched.values()].map((events) => events.length)).toEqual([1, 0, 0]);
  });

  it('reads several streams in one call, each in stream order, absent ones empty', async () => {
    const [x, y, absent] = [`s-${randomUUID()}`, `s-${randomUUID()}`, `s-${randomUUID()}`];
    const both = [y, x].map((streamId) => ({ streamId, expectedVersion: 0, events: [event(1)] }));
    await store.append(ds, both, meta());
    await store.append(ds, [{ streamId: x, expectedVersion: 1, events: [event(2), event(3)] }], meta());
    await store.append(ds, [{ streamId: y, expectedVersion: 1, events: [event(2)] }], meta());

    const streams = await store.readStreams(ds, [x, absent, y]);
    expect([...streams.keys()]).toEqual([x, absent, y]);
    expect(streams.get(x)!.map((e) => [e.streamId, e.streamPosition, e.data])).toEqual([
      [x, 1, { n: 1 }],
      [x, 2, { n: 2 }],
      [x, 3, { n: 3 }],
    ]);
    expect(streams.get(y)!.map((e) => e.streamPosition)).toEqual([1, 2]);
    expect(streams.get(absent)).toEqual([]);
    expect(streams.get(x)).toEqual(await store.readStream(ds, x));
    expect((await store.readStreams(ds, [])).size).toBe(0);
  });

  it('upcasts old schema versions on read and leaves the stored row as written', async () => {
    const streamId = `person-${randomUUID()}`;
    await store.append(
      ds,
      [{ streamId, expectedVersion: 0, events: [{ type: 'PersonRegistered', schemaVersion: 1, data: { name: 'Ada Lovelace' } }, event(1)] }],
      meta(),
    );
    const upcasters: Upcaster[] = [
      { type: 'PersonRegistered', fromVersion: 1, upcast: (d) => splitName(d as { name: string }) },
      { type: 'PersonRegistered', fromVersion: 2, upcast: (d) => ({ ...(d as object), title: null }) },
      // Same version, other type: must not touch PersonRegistered, and vice versa.
      { type: 'CounterIncremented', fromVersion: 1, upcast: (d) => ({ ...(d as object), upcast: true }) },
    ];
    const current = new EventStore(schema, upcasters);

    const [registered, counted] = await current.readStream(ds, streamId);
    expect(registered).toMatchObject({ schemaVersion: 3, data: { first: 'Ada', last: 'Lovelace', title: null } });
    expect(counted).toMatchObject({ schemaVersion: 2, data: { n: 1, upcast: true } });
    expect((await current.readStreams(ds, [streamId])).get(streamId)![0]!.data).toEqual(registered!.data);

    const stored = await ds.query(`SELECT schema_version, data FROM "${schema}".events WHERE stream_id = $1 ORDER BY stream_position`, [
      streamId,
    ]);
    expect(stored).toEqual([
      { schema_version: 1, data: { name: 'Ada Lovelace' } },
      { schema_version: 1, data: { n: 1 } },
    ]);
  });
});

describe('runMigrations', () => {
  it('keeps the events of a log written before the bodies became json readable as they were', async () => {
    const older = uniqueName('it_json_bodies');
    const before = eventStoreSchema.filter((m) => m.id !== '000-event-store-textual-json');
    try {
      await runMigrations(ds, older, before);
      const store = new EventStore(older);
      const data = { name: 'Ada', nested: { list: [1, 'two', null], unicode: 'ü€😀' }, n: 1.5 };
      await store.append(ds, [{ streamId: 'old-1', expectedVersion: 0, events: [{ type: 'Registered', schemaVersion: 1, data }] }], { correlationId: 'c', causationId: null, occurredAt: new Date().toISOString() });
      expect(await runMigrations(ds, older, eventStoreSchema)).toEqual(['000-event-store-textual-json']);
      const [column] = await ds.query(`SELECT data_type FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'events' AND column_name = 'data'`, [older]);
      expect(column).toEqual({ data_type: 'json' });
      await store.append(ds, [{ streamId: 'old-1', expectedVersion: 1, events: [{ type: 'Renamed', schemaVersion: 1, data: { name: 'Ada L.' } }] }], { correlationId: 'c', causationId: null, occurredAt: new Date().toISOString() });
      const events = await store.readStream(ds, 'old-1');
      expect(events.map((e) => e.data)).toEqual([data, { name: 'Ada L.' }]);
    } finally {
      await dropSchema(ds, older);
    }
  });

  it('applies each migration once, in order, even when replicas start together', async () => {
    const fresh = uniqueName('it_migrations');
    const migrations = [
      ...eventStoreSchema,
      { id: '001-extra', statements: (s: string) => [`CREATE TABLE ${s}.extra (id int PRIMARY KEY)`] },
    ];
    try {
      const applied = await Promise.all([1, 2, 3].map(() => runMigrations(ds, fresh, migrations)));
      expect(applied.flat()).toEqual(['000-event-store', '000-event-store-statistics', '000-event-store-textual-json', '000-event-store-locks', '001-extra']);
      expect(await runMigrations(ds, fresh, migrations)).toEqual([]);
      // Recorded once each (in one transaction: one applied_at, so the order is the ids').
      const ids = await ds.query(`SELECT id FROM "${fresh}".schema_migrations ORDER BY id`);
      expect(ids.map((r: { id: string }) => r.id)).toEqual(['000-event-store', '000-event-store-locks', '000-event-store-statistics', '000-event-store-textual-json', '001-extra']);
    } finally {
      await dropSchema(ds, fresh);
    }
  });
});

function splitName({ name }: { name: string }): { first: string; last: string } {
  const [first = '', last = ''] = name.split(' ');
  return { first, last };
}

async function backendPid(runner: QueryRunner): Promise<number> {
  return (await runner.query('SELECT pg_backend_pid() AS pid'))[0].pid;
}

async function isWaitingOnLock(pid: number): Promise<boolean> {
  const rows = await ds.query(`SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND wait_event_type = 'Lock'`, [pid]);
  return rows.length > 0;
}
