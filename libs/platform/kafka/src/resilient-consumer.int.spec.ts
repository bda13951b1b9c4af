import { randomUUID } from 'node:crypto';
import { MessageHeader } from '@seed/contracts';
import { eventually, testKafka, testLogger, uniqueName } from '@seed/platform-testing';
import type { KafkaConnection } from './kafka-connection';
import type { IncomingRecord } from './kafka-record';
import { deleteTopicsAndGroups, TopicRecorder } from './kafka.test-helpers';
import { MessageProducer } from './message-producer';
import { PermanentMessageError, ResilientConsumer, type ConsumerOptions, type RecordHandler } from './resilient-consumer';
import { deadLetterTopic, ensureTopics, type TopicSpec } from './topic-spec';

let kafka: KafkaConnection;
let producer: MessageProducer;
let deadLetters: TopicRecorder;
const consumers: ResilientConsumer[] = [];

// One partition each, so "the next record" is well defined.
const topic = (name: string): TopicSpec => ({ name, partitions: 1, retentionMs: 3_600_000 });
const TOPICS = ['retry', 'poison', 'restart', 'interval', 'waited'];

async function consume(options: Omit<ConsumerOptions, 'groupId'> & { groupId?: string }, handler: RecordHandler): Promise<ResilientConsumer> {
  const consumer = new ResilientConsumer(kafka, producer, testLogger(), { groupId: `group-${randomUUID()}`, ...options });
  consumers.push(consumer);
  await consumer.start(handler);
  return consumer;
}

async function send(topicName: string, ids: string[]): Promise<void> {
  await producer.send(
    topicName,
    ids.map((id) => ({ key: `key-${id}`, value: { id }, headers: { [MessageHeader.MessageId]: id, [MessageHeader.CorrelationId]: `corr-${id}` } })),
  );
}

const idOf = (record: IncomingRecord): string => record.headers[MessageHeader.MessageId] ?? '';

beforeAll(async () => {
  kafka = testKafka(uniqueName('it_consumer'));
  await ensureTopics(kafka, [...TOPICS.map(topic), ...TOPICS.map((t) => deadLetterTopic(t))]);
  producer = new MessageProducer(kafka);
  deadLetters = await new TopicRecorder(kafka, TOPICS.map((t) => deadLetterTopic(t).name)).start();
});

afterAll(async () => {
  await Promise.all(consumers.map((c) => c.stop()));
  await deadLetters?.stop();
  await producer?.disconnect();
  if (kafka) await deleteTopicsAndGroups(kafka);
});

describe('ResilientConsumer', () => {
  it('retries a failing record until the handler succeeds, and handles it once', async () => {
    const attempts = new Map<string, number>();
    const handled: string[] = [];
    await consume({ topics: ['retry'], deadLetterTopic: 'retry.dlq', maxAttempts: 5 }, async (record) => {
      const id = idOf(record);
      const attempt = (attempts.get(id) ?? 0) + 1;
      attempts.set(id, attempt);
      if (id === 'flaky' && attempt < 3) throw new Error(`transient failure ${attempt}`);
      handled.push(id);
    });
    await send('retry', ['flaky', 'next']);

    await eventually(async () => (handled.length >= 2 ? true : undefined));
    expect(handled).toEqual(['flaky', 'next']);
    expect(Object.fromEntries(attempts)).toEqual({ flaky: 3, next: 1 });
    expect(deadLetters.of('retry.dlq')).toEqual([]);
  });

  it('answers a record someone waits on "unavailable" after unavailableAfterMs, does not dead-letter it, and goes on', async () => {
    const answered: [string, string][] = [];
    const handled: string[] = [];
    let databaseDown = true;
    await consume(
      {
        topics: ['waited'],
        deadLetterTopic: 'waited.dlq',
        unavailableAfterMs: 500,
        // Only "waited-on" has someone to answer; "unanswerable" is retried as before.
        answerUnavailable: async (record, reason) => {
          if (idOf(record) !== 'waited-on') return false;
          answered.push([idOf(record), reason]);
          return true;
        },
      },
      async (record) => {
        if (databaseDown) throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
        handled.push(idOf(record));
      },
    );
    const sentAt = Date.now();
    await send('waited', ['waited-on', 'unanswerable']);

    await eventually(async () => (answered.length > 0 ? true : undefined));
    expect(Date.now() - sentAt).toBeGreaterThanOrEqual(500);
    expect(answered).toEqual([['waited-on', 'Error: connect ECONNREFUSED 127.0.0.1:5432']]);
    databaseDown = false; // the next record, retried meanwhile, now goes through
    await eventually(async () => (handled.includes('unanswerable') ? true : undefined));
    expect(handled).toEqual(['unanswerable']);
    expect(deadLetters.of('waited.dlq')).toEqual([]);
  });

  it('dead-letters permanent failures at once and an exhausted one after maxAttempts, then goes on', async () => {
    const attempts = new Map<string, number>();
    const handled: string[] = [];
    const deadLettered: [string, string][] = [];
    await consume(
      {
        topics: ['poison'],
        deadLetterTopic: 'poison.dlq',
        maxAttempts: 3,
        isPermanent: (error) => error instanceof RangeError,
        onDeadLetter: async (record, reason) => void deadLettered.push([idOf(record), reason]),
      },
      async (record) => {
        const id = idOf(record);
        attempts.set(id, (attempts.get(id) ?? 0) + 1);
        if (id === 'poison') throw new PermanentMessageError('not a command');
        if (id === 'hopeless') throw new Error('still broken');
        if (id === 'out-of-range') throw new RangeError('amount out of range');
        handled.push(id);
      },
    );
    await send('poison', ['before', 'poison', 'hopeless', 'out-of-range', 'after']);

    await eventually(async () => (handled.includes('after') && deadLetters.of('poison.dlq').length >= 3 ? true : undefined));
    expect(handled).toEqual(['before', 'after']);
    expect(Object.fromEntries(attempts)).toEqual({ before: 1, poison: 1, hopeless: 3, 'out-of-range': 1, after: 1 });

    const dlq = deadLetters.of('poison.dlq');
    expect(dlq.map(idOf)).toEqual(['poison', 'hopeless', 'out-of-range']);
    const reasons = ['PermanentMessageError: not a command', 'Error: still broken', 'RangeError: amount out of range'];
    expect(dlq.map((r) => r.headers[MessageHeader.DeadLetterReason])).toEqual(reasons);
    for (const record of dlq) {
      const id = idOf(record);
      // The original record, byte for byte, with its headers, so it can be inspected and replayed.
      expect(record.key).toBe(`key-${id}`);
      expect(record.value?.toString()).toBe(JSON.stringify({ id }));
      expect(record.headers[MessageHeader.CorrelationId]).toBe(`corr-${id}`);
      expect(record.headers[MessageHeader.DeadLetterSourceTopic]).toBe(kafka.topic('poison'));
    }
    expect(deadLettered).toEqual(dlq.map((r, i) => [idOf(r), reasons[i]]));
  });

  it('commits what it handled: a restarted consumer of the same group continues after it', async () => {
    const groupId = `restart-${randomUUID()}`;
    const first: string[] = [];
    const consumer = await consume({ groupId, topics: ['restart'], deadLetterTopic: 'restart.dlq' }, async (record) => {
      first.push(idOf(record));
    });
    await send('restart', ['r1', 'r2', 'r3']);
    await eventually(async () => (first.length >= 3 ? true : undefined));
    await consumer.stop();

    await send('restart', ['r4', 'r5']);
    const second: string[] = [];
    await consume({ groupId, topics: ['restart'], deadLetterTopic: 'restart.dlq' }, async (record) => {
      second.push(idOf(record));
    });
    // One partition: a re-handled r1..r3 would come before r4.
    await eventually(async () => (second.includes('r5') ? true : undefined));
    expect(first).toEqual(['r1', 'r2', 'r3']);
    expect(second).toEqual(['r4', 'r5']);
  });

  it('commits handled records on its interval while it runs, not only when it stops', async () => {
    const groupId = `interval-${randomUUID()}`;
    const handled: string[] = [];
    await consume({ groupId, topics: ['interval'], deadLetterTopic: 'interval.dlq', commitIntervalMs: 200 }, async (record) => {
      handled.push(idOf(record));
    });
    await send('interval', ['i1', 'i2', 'i3']);
    await eventually(async () => (handled.length >= 3 ? true : undefined));

    // What a consumer that dies now (no stop, no final commit) leaves its group: all three handled.
    const admin = kafka.kafka.admin();
    await admin.connect();
    try {
      const committed = await eventually(async () => {
        const [offsets] = await admin.fetchOffsets({ groupId: kafka.group(groupId), topics: [kafka.topic('interval')] });
        const offset = offsets?.partitions[0]?.offset;
        return offset === '3' ? offset : undefined;
      });
      expect(committed).toBe('3');
    } finally {
      await admin.disconnect();
    }
  });
});
