import type { DataSource } from 'typeorm';
import { dropSchema, openTestDataSource, uniqueName } from '@seed/platform-testing';
import { CommandPipeline, CommitDeadlinePassed } from './command-pipeline';
import { EventStore } from './event-store';
import { eventStoreSchema } from './event-store.migrations';
import { runMigrations } from './migration-runner';
import { ProcessedMessages } from './processed-messages';

const schema = uniqueName('it_command_pipeline');
const store = new EventStore(schema);
let ds: DataSource;
let pipeline: CommandPipeline;
const woken: string[][] = [];
const metadata = { correlationId: 'corr', causationId: null, occurredAt: '2030-01-15T10:00:00.000Z' };

/** A counter as a stream: each command adds one event at the version it read. */
const increment = (streamId: string, commandId: string | null, beforeAppend: () => Promise<void> = async () => undefined) =>
  pipeline.run({ consumer: 'counter', commandId, metadata }, async (tx) => {
    const events = await store.readStream(tx, streamId);
    await beforeAppend();
    return { appends: [{ streamId, expectedVersion: events.length, events: [{ type: 'Incremented', schemaVersion: 1, data: {} }] }], result: events.length + 1 };
  });

beforeAll(async () => {
  ds = await openTestDataSource(8);
  await runMigrations(ds, schema, eventStoreSchema);
  pipeline = new CommandPipeline(ds, store, new ProcessedMessages(schema), (types) => woken.push([...types]));
});

afterAll(async () => {
  await dropSchema(ds, schema);
  await ds.destroy();
});

describe('CommandPipeline', () => {
  it('decides, appends and answers; a redelivered command gets its first answer and appends nothing', async () => {
    expect(await increment('counter-a', 'c-1')).toBe(1);
    expect(await increment('counter-a', 'c-1')).toBe(1);
    expect(await store.readStream(ds.manager, 'counter-a')).toHaveLength(1);
    expect(woken).toEqual([['Incremented']]);
  });

  it('decides again on fresh reads when another writer appended first', async () => {
    let raced = false;
    const answer = await increment('counter-b', 'c-2', async () => {
      if (raced) return;
      raced = true;
      await increment('counter-b', 'c-3'); // commits between this command's read and its append
    });
    expect(answer).toBe(2);
    expect(await store.readStream(ds.manager, 'counter-b')).toHaveLength(2);
  });

  it('rolls everything back on a refusal, and keeps no record without a command id', async () => {
    await expect(pipeline.run({ consumer: 'counter', commandId: 'c-4', metadata }, async () => Promise.reject(new Error('refused')))).rejects.toThrow('refused');
    expect(await increment('counter-c', 'c-4')).toBe(1); // the refused command left no record
    expect(await increment('counter-c', null)).toBe(2);
    expect(await increment('counter-c', null)).toBe(3);
  });

  it('tries a single-append decision without a transaction, then in one once another writer came first', async () => {
    const seen: { conflicts: number; inTransaction: boolean }[] = [];
    let raced = false;
    const answer = await pipeline.run({ consumer: 'counter', commandId: null, metadata, transaction: 'after-a-conflict' }, async (tx, retry) => {
      seen.push({ conflicts: retry.conflicts, inTransaction: tx !== ds.manager });
      const events = await store.readStream(tx, 'counter-d');
      if (!raced) {
        raced = true;
        await increment('counter-d', null);
      }
      return { appends: [{ streamId: 'counter-d', expectedVersion: events.length, events: [{ type: 'Incremented', schemaVersion: 1, data: {} }] }], result: events.length + 1 };
    });
    expect(answer).toBe(2);
    expect(seen).toEqual([
      { conflicts: 0, inTransaction: false },
      { conflicts: 1, inTransaction: true },
    ]);
  });

  it('commits nothing past a decision\'s commitBy, and appends at the time a decision gives', async () => {
    const decide = (commitBy: number) => async () => ({
      appends: [{ streamId: 'counter-e', expectedVersion: 0, events: [{ type: 'Incremented', schemaVersion: 1, data: {} }] }],
      result: 1,
      occurredAt: '2030-01-15T10:00:05.000Z',
      commitBy,
    });
    await expect(pipeline.run({ consumer: 'counter', commandId: 'c-5', metadata }, decide(Date.now() - 1))).rejects.toBeInstanceOf(CommitDeadlinePassed);
    expect(await store.readStream(ds.manager, 'counter-e')).toHaveLength(0);
    expect(await pipeline.run({ consumer: 'counter', commandId: 'c-5', metadata }, decide(Date.now() + 60_000))).toBe(1);
    const [event] = await store.readStream(ds.manager, 'counter-e');
    expect(event?.occurredAt).toBe('2030-01-15T10:00:05.000Z');
  });

  it('looks at commitBy before the append when it runs without a transaction (its append commits at once)', async () => {
    const decide = (commitBy: number) => async () => ({
      appends: [{ streamId: 'counter-f', expectedVersion: 0, events: [{ type: 'Incremented', schemaVersion: 1, data: {} }] }],
      result: 1,
      commitBy,
    });
    const command = { consumer: 'counter', commandId: null, metadata, transaction: 'after-a-conflict' as const };
    await expect(pipeline.run(command, decide(Date.now() - 1))).rejects.toBeInstanceOf(CommitDeadlinePassed);
    expect(await store.readStream(ds.manager, 'counter-f')).toHaveLength(0);
    expect(await pipeline.run(command, decide(Date.now() + 60_000))).toBe(1);
    expect(await store.readStream(ds.manager, 'counter-f')).toHaveLength(1);
  });
});
