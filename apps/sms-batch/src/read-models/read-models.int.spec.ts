import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import {
  EVENT_COLUMNS,
  EventStore,
  EventSubscription,
  replayProjection,
  type EventRow,
  type Projection,
  type StoredEvent,
} from '@seed/platform-event-store';
import { dropSchema, eventually, openTestDataSource, testLogger, uniqueName } from '@seed/platform-testing';
import { decideSubmitBatch, initialBatchState } from '@seed/sms-batch-domain';
import { batchStreamId, messageStreamId, RejectionDescription, type SubmitBatchData } from '@seed/sms-batch-contracts';
import { smsBatchProjections } from '../sms-batch.service';
import { migrateSmsBatchSchema, mixedBatch } from '../sms-batch.test-helpers';
import { BatchesProjection } from './batches.projection';
import { MessagesProjection } from './messages.projection';

const schema = uniqueName('it_sms_read_models');
const store = new EventStore(schema);
const logger = testLogger();
let ds: DataSource;

/** Decides and appends a batch the way SubmitBatchHandler does; returns the batch id. */
async function submit(data: SubmitBatchData, now: string): Promise<string> {
  const batchId = randomUUID();
  const umids = data.messages.map(() => randomUUID());
  const decided = decideSubmitBatch({ data, batchId, umids, now }, initialBatchState());
  await store.append(
    ds,
    [
      { streamId: batchStreamId(batchId), expectedVersion: 0, events: decided.batch },
      ...decided.messages.map((m) => ({ streamId: messageStreamId(m.umid), expectedVersion: 0, events: m.events })),
    ],
    { correlationId: randomUUID(), causationId: randomUUID(), occurredAt: now },
  );
  return batchId;
}

const readLog = async (): Promise<StoredEvent[]> =>
  (await ds.query(`SELECT ${EVENT_COLUMNS} FROM "${schema}".events ORDER BY global_position`)).map((r: EventRow) => store.toStoredEvent(r));

/** Every row of both read models, in a stable order. */
async function dump(): Promise<{ batches: unknown[]; messages: unknown[] }> {
  return {
    batches: await ds.query(`SELECT * FROM "${schema}".batches ORDER BY batch_id`),
    messages: await ds.query(`SELECT * FROM "${schema}".messages ORDER BY umid`),
  };
}

async function deliver(projections: readonly Projection[], events: readonly StoredEvent[]): Promise<void> {
  await ds.transaction(async (tx) => {
    for (const projection of projections) await projection.handle(events, tx);
  });
}

beforeAll(async () => {
  ds = await openTestDataSource();
  await migrateSmsBatchSchema(ds, schema);
});

afterAll(async () => {
  await dropSchema(ds, schema);
  await ds.destroy();
});

describe('sms-batch read models', () => {
  // The first test fills the tables straight from the log; the second rebuilds them live.
  const projections = [new BatchesProjection(schema), new MessagesProjection(schema)];

  it('leave the same rows when the same events are delivered twice, whole or in overlapping parts', async () => {
    await submit(mixedBatch('acme_hq', { clientBatchId: 'cb-1' }), '2030-01-15T10:00:00.000Z');
    await submit(mixedBatch('acme_hq'), '2030-01-15T10:00:01.000Z');
    await submit(mixedBatch('acme_eu', { clientBatchId: 'cb-1' }), '2030-01-15T10:00:02.000Z');
    const log = await readLog();

    await deliver(projections, log);
    const once = await dump();
    expect(once.batches).toHaveLength(3);
    expect(once.messages).toHaveLength(15);
    expect(once.messages.map((m) => (m as { state: string }).state).sort()).toEqual([...Array(9).fill('queued'), ...Array(6).fill('rejected')]);

    await deliver(projections, log);
    expect(await dump()).toEqual(once);
    const half = Math.floor(log.length / 2);
    await deliver(projections, log.slice(half));
    await deliver(projections, log.slice(0, half + 3));
    for (const event of log.slice(0, 6)) await deliver(projections, [event, event]);
    expect(await dump()).toEqual(once);

    const rejected = once.messages.find((m) => (m as { destination: string }).destination === 'not a number');
    expect(rejected).toMatchObject({ state: 'rejected', detail: RejectionDescription.InvalidMsisdn, client_message_id: 'm-4' });
  });

  it('rebuilt by replayProjection equal the rows the live subscriptions wrote', async () => {
    await ds.query(`TRUNCATE "${schema}".batches, "${schema}".messages`);
    const live = smsBatchProjections(schema).map((p) => new EventSubscription(ds, store, p, logger, { idleMs: 10, batchSize: 7 }));
    live.forEach((s) => s.start());
    try {
      for (let i = 0; i < 4; i++) {
        await submit(mixedBatch(`acme_${i % 2}`, i % 2 ? {} : { clientBatchId: `cb-live-${i}` }), `2030-02-0${i + 1}T08:00:00.000Z`);
        live.forEach((s) => s.wake());
      }
      const end = (await readLog()).at(-1)!.globalPosition;
      await eventually(async () => {
        const rows = await ds.query(`SELECT 1 FROM "${schema}".subscription_checkpoints WHERE global_position = $1`, [end]);
        return rows.length === live.length ? true : undefined;
      });
    } finally {
      await Promise.all(live.map((s) => s.stop()));
    }
    const liveRows = await dump();
    expect(liveRows.batches).toHaveLength(7);
    expect(liveRows.messages).toHaveLength(35);

    // Damage both read models the way a bad deploy might, then rebuild them from the log.
    await ds.query(`DELETE FROM "${schema}".messages WHERE ctid IN (SELECT ctid FROM "${schema}".messages LIMIT 5)`);
    await ds.query(`UPDATE "${schema}".batches SET accepted_count = -1`);
    await ds.query(
      `INSERT INTO "${schema}".batches VALUES ($1, null, 'ghost', 'ghost', 0, 0, now())`,
      [randomUUID()],
    );
    let replayed = 0;
    for (const projection of smsBatchProjections(schema)) replayed += await replayProjection(ds, store, projection, logger);

    expect(replayed).toBe(smsBatchProjections(schema).length * (await readLog()).length);
    expect(await dump()).toEqual(liveRows);
  });
});
