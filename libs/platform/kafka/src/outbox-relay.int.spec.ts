import { randomBytes, randomUUID } from 'node:crypto';
import { ConfigResourceTypes } from 'kafkajs';
import pino from 'pino';
import type { DataSource } from 'typeorm';
import { MessageHeader } from '@seed/contracts';
import {
  EVENT_COLUMNS,
  EventStore,
  EventSubscription,
  eventStoreSchema,
  runMigrations,
  type EventRow,
  type StoredEvent,
} from '@seed/platform-event-store';
import { dropSchema, eventually, openTestDataSource, testKafka, testLogger, uniqueName } from '@seed/platform-testing';
import type { KafkaConnection } from './kafka-connection';
import type { IncomingRecord } from './kafka-record';
import { MessageProducer } from './message-producer';
import { OutboxRelay, withoutStoreFields } from './outbox-relay';
import { deleteTopicsAndGroups, jsonOf, TopicRecorder } from './kafka.test-helpers';
import { ensureTopics, eventTopic } from './topic-spec';

const schema = uniqueName('it_outbox');
const store = new EventStore(schema);
let ds: DataSource;
let kafka: KafkaConnection;
let producer: MessageProducer;
let recorder: TopicRecorder;

/** The topic of the relay with a public shape (its own checkpoint). */
const SHAPED_TOPIC = 'events-shaped';

/** A topic whose records may hold at most 4 KiB: an operator mistake the relay must survive. */
const SMALL_TOPIC = { name: 'events-small', partitions: 3, retentionMs: -1, maxMessageBytes: 4096 };

const metadata = (n: number) => ({
  correlationId: `corr-${n}-${randomUUID()}`,
  causationId: `cmd-${n}`,
  traceparent: null,
  occurredAt: new Date(Date.UTC(2024, 0, 1, 0, 0, n)).toISOString(),
});
const ticked = (n: number, extra: Record<string, unknown> = {}) => ({ type: 'Ticked', schemaVersion: 1, data: { n, ...extra } });

const readLog = async (): Promise<StoredEvent[]> =>
  (await ds.query(`SELECT ${EVENT_COLUMNS} FROM "${schema}".events ORDER BY global_position`)).map((row: EventRow) => store.toStoredEvent(row));
const checkpointOf = async (name: string): Promise<string | null> =>
  (await ds.query(`SELECT global_position::text AS p FROM "${schema}".subscription_checkpoints WHERE subscription = $1`, [name]))[0]?.p ??
  null;

/** Each record's event, first occurrence only: what a subscriber that dedupes by eventId sees. */
function firstDeliveries(records: readonly IncomingRecord[]): Map<string, IncomingRecord> {
  const seen = new Map<string, IncomingRecord>();
  for (const r of records) {
    const id = r.headers[MessageHeader.MessageId] ?? '';
    if (!seen.has(id)) seen.set(id, r);
  }
  return seen;
}

beforeAll(async () => {
  ds = await openTestDataSource();
  await runMigrations(ds, schema, eventStoreSchema);
  kafka = testKafka(uniqueName('it_outbox'));
  await ensureTopics(kafka, [eventTopic('events'), eventTopic(SHAPED_TOPIC), SMALL_TOPIC]);
  producer = new MessageProducer(kafka);
  recorder = await new TopicRecorder(kafka, ['events', SHAPED_TOPIC, SMALL_TOPIC.name]).start();
});

afterAll(async () => {
  await recorder?.stop();
  await producer?.disconnect();
  if (kafka) await deleteTopicsAndGroups(kafka);
  await dropSchema(ds, schema);
  await ds.destroy();
});

describe('OutboxRelay following the log', () => {
  it('publishes every event keyed by stream id, in stream order per key, with its envelope and headers', async () => {
    const streams = Array.from({ length: 6 }, () => `order-${randomUUID()}`);
    for (let v = 0; v < 4; v++) {
      // Several streams per transaction, several transactions per stream.
      await store.append(ds, streams.map((streamId, i) => ({ streamId, expectedVersion: v, events: [ticked(v * 10 + i)] })), metadata(v));
    }
    await store.append(ds, [{ streamId: streams[0]!, expectedVersion: 4, events: [ticked(40), ticked(41)] }], metadata(4));
    const log = await readLog();

    const relay = new OutboxRelay(producer, 'events');
    const subscription = new EventSubscription(ds, store, relay, testLogger(), { idleMs: 20 });
    subscription.start();
    try {
      await eventually(async () => (recorder.of('events').length >= log.length ? true : undefined));
    } finally {
      await subscription.stop();
    }

    const records = recorder.of('events');
    expect(records).toHaveLength(log.length);
    expect(await checkpointOf(relay.name)).toBe(log[log.length - 1]!.globalPosition);
    const byId = new Map(records.map((r) => [r.headers[MessageHeader.MessageId], r]));
    for (const event of log) {
      const record = byId.get(event.eventId);
      expect(record).toBeDefined();
      expect(record!.key).toBe(event.streamId);
      expect(jsonOf(record!)).toEqual(withoutStoreFields(event));
      expect(record!.headers).toMatchObject({
        [MessageHeader.MessageId]: event.eventId,
        [MessageHeader.MessageType]: 'Ticked',
        [MessageHeader.CorrelationId]: event.correlationId,
        [MessageHeader.CausationId]: event.causationId,
      });
    }
    for (const streamId of streams) {
      const ofStream = records.filter((r) => r.key === streamId);
      expect(new Set(ofStream.map((r) => r.partition)).size).toBe(1);
      const positions = ofStream.sort((a, b) => Number(a.offset) - Number(b.offset)).map((r) => jsonOf<StoredEvent>(r).streamPosition);
      expect(positions).toEqual(streamId === streams[0] ? [1, 2, 3, 4, 5, 6] : [1, 2, 3, 4]);
    }
  });

  it('passes bodies on as stored, reshapes only the types its shape names, keeps private what it refuses, and publishes upcast bodies', async () => {
    const streamId = `order-${randomUUID()}`;
    await store.append(
      ds,
      [
        {
          streamId,
          expectedVersion: 0,
          events: [
            { type: 'Secret', schemaVersion: 1, data: { n: 1, pin: '1234' } },
            { type: 'Hidden', schemaVersion: 1, data: { n: 2 } },
            { type: 'Renamed', schemaVersion: 1, data: { name: 'Ada' } },
            ticked(4, { text: 'line\nbreak "quoted" \u00e9' }),
          ],
        },
      ],
      metadata(5),
    );
    const upcasting = new EventStore(schema, [{ type: 'Renamed', fromVersion: 1, upcast: (data) => ({ fullName: (data as { name: string }).name }) }]);
    const log = (await readLog()).filter((e) => e.streamId === streamId);
    const relay = new OutboxRelay(producer, SHAPED_TOPIC, {
      reshaped: ['Secret', 'Hidden'],
      toPublic: (event) => {
        if (event.type === 'Hidden') return null;
        const { pin: _pin, ...data } = event.data as { n: number; pin: string };
        return { ...withoutStoreFields(event), data };
      },
    });
    const subscription = new EventSubscription(ds, upcasting, relay, testLogger(), { idleMs: 20 });
    subscription.start();
    try {
      await eventually(async () => (recorder.of(SHAPED_TOPIC).filter((r) => r.key === streamId).length >= 3 ? true : undefined));
    } finally {
      await subscription.stop();
    }

    const records = recorder.of(SHAPED_TOPIC).filter((r) => r.key === streamId);
    expect(records.map((r) => r.headers[MessageHeader.MessageType])).toEqual(['Secret', 'Renamed', 'Ticked']);
    const [secret, renamed, tick] = records.map((r) => r.value?.toString() ?? '');
    expect(JSON.parse(secret!)).toEqual({ ...withoutStoreFields(log[0]!), data: { n: 1 } });
    expect(JSON.parse(renamed!)).toEqual({ ...withoutStoreFields(log[2]!), schemaVersion: 2, data: { fullName: 'Ada' } });
    // Byte for byte what serialising the parsed event gives: subscribers cannot tell the difference.
    expect(tick).toBe(JSON.stringify(withoutStoreFields(log[3]!)));
  });

  it('keeps its checkpoint while the broker refuses a batch, then publishes everything at least once, in order per stream', async () => {
    const failures: string[] = [];
    // A refused batch is a warning for its first minute (FailureStreak), then an error.
    const logger = pino({ level: 'warn' }, { write: (line: string) => failures.push(line) });
    const big = randomBytes(6000).toString('hex'); // does not compress below 4 KiB
    const stuck = `order-${randomUUID()}`;
    const others = Array.from({ length: 5 }, () => `order-${randomUUID()}`);
    await store.append(
      ds,
      [
        { streamId: stuck, expectedVersion: 0, events: [ticked(1), ticked(2, { big }), ticked(3)] },
        ...others.map((streamId) => ({ streamId, expectedVersion: 0, events: [ticked(1), ticked(2)] })),
      ],
      metadata(9),
    );
    const log = await readLog();
    const bigEvent = log.find((e) => e.streamId === stuck && e.streamPosition === 2)!;

    const relay = new OutboxRelay(producer, SMALL_TOPIC.name);
    const subscription = new EventSubscription(ds, store, relay, logger, { idleMs: 20, retryMs: 50 });
    subscription.start();
    try {
      await eventually(async () => (failures.length >= 3 ? true : undefined));
      expect(failures.join('\n')).toContain('larger than the max message size');
      // Earlier events of the log (other tests', or ones visible before these) may be published and
      // checkpointed first; the checkpoint never passes the batch the broker refuses.
      const held = await checkpointOf(relay.name);
      expect(held === null || BigInt(held) < BigInt(bigEvent.globalPosition)).toBe(true);
      expect(recorder.of(SMALL_TOPIC.name).some((r) => r.key === stuck && jsonOf<StoredEvent>(r).streamPosition >= 2)).toBe(false);

      await raiseMaxMessageBytes(kafka.topic(SMALL_TOPIC.name));
      await eventually(async () => ((await checkpointOf(relay.name)) === log[log.length - 1]!.globalPosition ? true : undefined));
    } finally {
      await subscription.stop();
    }

    await eventually(async () => (firstDeliveries(recorder.of(SMALL_TOPIC.name)).size >= log.length ? true : undefined));
    const delivered = firstDeliveries(recorder.of(SMALL_TOPIC.name));
    expect([...delivered.keys()].sort()).toEqual(log.map((e) => e.eventId).sort());
    for (const streamId of [stuck, ...others]) {
      const ofStream = [...delivered.values()].filter((r) => r.key === streamId).sort((a, b) => Number(a.offset) - Number(b.offset));
      expect(ofStream.map((r) => jsonOf<StoredEvent>(r).streamPosition)).toEqual(streamId === stuck ? [1, 2, 3] : [1, 2]);
    }
    expect(jsonOf<StoredEvent<{ big: string }>>(delivered.get(bigEvent.eventId)!).data.big).toBe(big);
  });
});

async function raiseMaxMessageBytes(topic: string): Promise<void> {
  const admin = kafka.kafka.admin();
  await admin.connect();
  try {
    await admin.alterConfigs({
      validateOnly: false,
      resources: [{ type: ConfigResourceTypes.TOPIC, name: topic, configEntries: [{ name: 'max.message.bytes', value: String(1024 * 1024) }] }],
    });
  } finally {
    await admin.disconnect();
  }
}
