import { randomUUID } from 'node:crypto';
import { PartitionAssigners, type Consumer, type PartitionAssigner } from 'kafkajs';
import { MessageHeader } from '@seed/contracts';
import { eventually, testKafka, testLogger, uniqueName } from '@seed/platform-testing';
import { consumerRestarts } from './crash-restarter';
import type { KafkaConnection } from './kafka-connection';
import { deleteTopicsAndGroups } from './kafka.test-helpers';
import { MessageProducer } from './message-producer';
import { ResilientConsumer } from './resilient-consumer';
import { ensureTopics } from './topic-spec';

let kafka: KafkaConnection;
let producer: MessageProducer;
const stops: (() => Promise<void>)[] = [];

/** kafkajs's round robin under another protocol name: a group member no platform consumer can join beside. */
const otherProtocol: PartitionAssigner = (config) => {
  const roundRobin = PartitionAssigners.roundRobin(config);
  return { ...roundRobin, name: 'OtherProtocol', protocol: (subscription) => ({ ...roundRobin.protocol(subscription), name: 'OtherProtocol' }) };
};

beforeAll(async () => {
  kafka = testKafka(uniqueName('it_restart'));
  await ensureTopics(kafka, [{ name: 'crashing', partitions: 1, retentionMs: 3_600_000 }]);
  producer = new MessageProducer(kafka);
});

afterAll(async () => {
  for (const stop of stops) await stop();
  await producer?.disconnect();
  if (kafka) await deleteTopicsAndGroups(kafka);
});

describe('a consumer whose kafkajs consumer crashed with an error kafkajs does not restart from', () => {
  it('is started again, and handles the records sent after the cause went away', async () => {
    const groupId = `crashing-${randomUUID()}`;
    // A member of the group with protocols of its own: the platform consumer's join is refused
    // (INCONSISTENT_GROUP_PROTOCOL, not retriable), as a join is refused while a broker restarts.
    const squatter: Consumer = kafka.kafka.consumer({ groupId: kafka.group(groupId), partitionAssigners: [otherProtocol] });
    await squatter.connect();
    await squatter.subscribe({ topic: kafka.topic('crashing') });
    const squatterJoined = new Promise((resolve) => squatter.on(squatter.events.GROUP_JOIN, resolve));
    await squatter.run({ eachMessage: async () => undefined });
    await squatterJoined;

    const crashes: Error[] = [];
    const handled: string[] = [];
    const restartsBefore = (await consumerRestarts.get()).values.find((v) => v.labels.group === groupId)?.value ?? 0;
    const consumer = new ResilientConsumer(kafka, producer, testLogger(), { groupId, topics: ['crashing'], onCrash: (error) => crashes.push(error) });
    stops.push(() => consumer.stop());
    await consumer.start(async (record) => {
      handled.push(record.headers[MessageHeader.MessageId] ?? '');
    });
    await eventually(async () => (crashes.length > 0 ? true : undefined));
    expect(crashes[0]?.message).toMatch(/protocols are incompatible/);

    await squatter.disconnect();
    await producer.send('crashing', [{ key: 'k', value: { id: 'after' }, headers: { [MessageHeader.MessageId]: 'after' } }]);

    await eventually(async () => (handled.length > 0 ? true : undefined), 30_000);
    expect(handled).toEqual(['after']);
    const restarts = (await consumerRestarts.get()).values.find((v) => v.labels.group === groupId)?.value ?? 0;
    expect(restarts - restartsBefore).toBeGreaterThanOrEqual(1);
  });
});
