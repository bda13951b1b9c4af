import { randomUUID } from 'node:crypto';
import { MessageHeader } from '@seed/contracts';
import { eventually, testKafka, testLogger, uniqueName } from '@seed/platform-testing';
import type { KafkaConnection } from './kafka-connection';
import { deleteTopicsAndGroups, TopicRecorder } from './kafka.test-helpers';
import { MessageProducer } from './message-producer';
import type { BatchHandler } from './record-batch';
import { ResilientConsumer } from './resilient-consumer';
import { deadLetterTopic, ensureTopics, type TopicSpec } from './topic-spec';

/** ResilientConsumer's batch mode: what the handler marks handled is committed, failures retried, junk dead-lettered. */
let kafka: KafkaConnection;
let producer: MessageProducer;
let deadLetters: TopicRecorder;

const topic = (name: string): TopicSpec => ({ name, partitions: 1, retentionMs: 3_600_000 });
const TOPICS = ['batches', 'resume'];

const idOf = (value: Buffer | null): string => (JSON.parse(value?.toString() ?? '{}') as { id?: string }).id ?? '';

async function send(topicName: string, ids: string[]): Promise<void> {
  await producer.send(topicName, ids.map((id) => ({ key: `key-${id}`, value: { id }, headers: { [MessageHeader.MessageId]: id } })));
}

function batchConsumer(topicName: string, groupId: string): ResilientConsumer {
  return new ResilientConsumer(kafka, producer, testLogger(), { groupId, topics: [topicName], deadLetterTopic: `${topicName}.dlq`, commitIntervalMs: 100 });
}

beforeAll(async () => {
  kafka = testKafka(uniqueName('it_batches'));
  await ensureTopics(kafka, [...TOPICS.map(topic), ...TOPICS.map((t) => deadLetterTopic(t))]);
  producer = new MessageProducer(kafka);
  deadLetters = await new TopicRecorder(kafka, TOPICS.map((t) => deadLetterTopic(t).name)).start();
});

afterAll(async () => {
  await deadLetters?.stop();
  await producer?.disconnect();
  if (kafka) await deleteTopicsAndGroups(kafka);
});

describe('ResilientConsumer batch mode', () => {
  it('retries a failing chunk until it succeeds, and dead-letters the records its handler gives up on', async () => {
    const handled: string[] = [];
    let failures = 2;
    const handler: BatchHandler = async (batch) => {
      for (const message of batch.messages) {
        if (!batch.active()) return;
        const id = idOf(message.value);
        if (id.startsWith('junk')) await batch.deadLetter(message, 'not wanted');
        else
          await batch.retrying(async () => {
            if (id === 'flaky' && failures-- > 0) throw new Error('transient');
            handled.push(id);
          }, 'test record not handled');
        batch.handled(message.offset);
      }
    };
    const consumer = batchConsumer('batches', `group-${randomUUID()}`);
    await consumer.startBatches(handler);
    try {
      await send('batches', ['a', 'flaky', 'junk-1', 'b']);
      await eventually(async () => (handled.length >= 3 && deadLetters.of('batches.dlq').length >= 1 ? true : undefined));
      expect(handled).toEqual(['a', 'flaky', 'b']);
      expect(deadLetters.of('batches.dlq').map((r) => [idOf(r.value), r.headers[MessageHeader.DeadLetterReason]])).toEqual([['junk-1', 'not wanted']]);
    } finally {
      await consumer.stop();
    }
  });

  it('commits only what was marked handled: a new member of the group starts after it', async () => {
    const groupId = `group-${randomUUID()}`;
    const first: string[] = [];
    // The first member handles only up to "stop-here" and marks nothing after it.
    let halted = false;
    const consumer = batchConsumer('resume', groupId);
    await consumer.startBatches(async (batch) => {
      for (const message of batch.messages) {
        const id = idOf(message.value);
        if (halted || id === 'later') {
          halted = true;
          return;
        }
        first.push(id);
        batch.handled(message.offset);
      }
    });
    await send('resume', ['one', 'two', 'later', 'last']);
    await eventually(async () => (halted ? true : undefined));
    await consumer.stop();

    const second: string[] = [];
    const next = batchConsumer('resume', groupId);
    await next.startBatches(async (batch) => {
      for (const message of batch.messages) {
        second.push(idOf(message.value));
        batch.handled(message.offset);
      }
    });
    try {
      await eventually(async () => (second.length >= 2 ? true : undefined));
      expect(first).toEqual(['one', 'two']);
      expect(second).toEqual(['later', 'last']);
    } finally {
      await next.stop();
    }
  });
});
