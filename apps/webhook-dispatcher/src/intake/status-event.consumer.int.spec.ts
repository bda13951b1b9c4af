import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { EventStore, eventStoreSchema, runMigrations } from '@seed/platform-event-store';
import { ensureTopics, eventTopic, MessageProducer, type KafkaConnection } from '@seed/platform-kafka';
import { ServiceSchema } from '@seed/platform-nest';
import { parseKeyring } from '@seed/platform-secrets';
import { dropSchema, eventually, openTestDataSource, testKafka, testKeyring, testLogger, uniqueName } from '@seed/platform-testing';
import { SMS_BATCH_EVENT_TOPIC } from '@seed/sms-batch-contracts';
import { AccountWebhooksStore, SecretSealer } from '../accounts/account-webhooks.store';
import { DeliveryStore } from '../sending/delivery-store';
import { committedToEnd } from '../sending/sender.test-helpers';
import { webhookMigrations } from '../webhook.migrations';
import { DeliveryIntake } from './delivery-intake';
import { INTAKE_DEAD_LETTERS, INTAKE_GROUP, StatusEventConsumer } from './status-event.consumer';

/** The intake against the real broker: events become deliveries once, junk is dead-lettered, nothing stops the partition. */
const name = uniqueName('it_wh_intake');
let ds: DataSource;
let connection: KafkaConnection;
let producer: MessageProducer;
let consumer: StatusEventConsumer;

beforeAll(async () => {
  ds = await openTestDataSource(4);
  await runMigrations(ds, name, [...eventStoreSchema, ...webhookMigrations]);
  connection = testKafka(name);
  await ensureTopics(connection, [eventTopic(SMS_BATCH_EVENT_TOPIC), INTAKE_DEAD_LETTERS]);
  producer = new MessageProducer(connection);
  const store = new EventStore(name);
  const schema = new ServiceSchema(name);
  const deliveries = new DeliveryStore(ds, store, schema);
  const intake = new DeliveryIntake(deliveries, new AccountWebhooksStore(store, schema), new SecretSealer(parseKeyring(testKeyring())), schema, testLogger());
  consumer = new StatusEventConsumer(connection, producer, ds, intake, testLogger(), { offer: () => undefined, scheduled: () => undefined });
  await consumer.start();
});

afterAll(async () => {
  await consumer.stop();
  await producer.disconnect();
  const admin = connection.kafka.admin();
  await admin.connect();
  await admin.deleteTopics({ topics: [connection.topic(SMS_BATCH_EVENT_TOPIC), connection.topic(INTAKE_DEAD_LETTERS.name)] }).catch(() => undefined);
  await admin.disconnect();
  await dropSchema(ds, name);
  await ds.destroy();
});

/** A status change of message `umid` as sms-batch publishes it: its envelope, and `data` added to the message's reference. */
function statusEvent(umid: string, type: string, streamPosition: number, accountId: string, data: Record<string, unknown>) {
  return {
    eventId: randomUUID(),
    type,
    schemaVersion: 1,
    streamId: `sms-message-${umid}`,
    streamPosition,
    occurredAt: new Date().toISOString(),
    correlationId: 'c',
    causationId: null,
    traceparent: null,
    data: { umid, batchId: randomUUID(), clientBatchId: null, clientMessageId: null, accountId, subAccountId: `${accountId}_hq`, destination: '447911123456', source: null, smsCount: 1, carrierMessageIds: ['1'], ...data },
  };
}

it('schedules each status change once (a redelivered event too) and dead-letters a record that is not an event', async () => {
  const umid = randomUUID();
  const event = statusEvent(umid, 'MessageSent', 2, 'acme', { dlrCallbackUrl: 'https://hooks.example.com/x', sentAt: new Date().toISOString() });
  const key = event.streamId;
  await producer.sendRaw(connection.topic(SMS_BATCH_EVENT_TOPIC), [{ key, value: Buffer.from('not json'), headers: {} }]);
  await producer.send(SMS_BATCH_EVENT_TOPIC, [{ key, value: event, headers: {} }, { key, value: event, headers: {} }]);

  const rows = await eventually(async () => {
    const found: { umid: string }[] = await ds.query(`SELECT umid FROM "${name}".deliveries WHERE umid = $1`, [umid]);
    return found.length > 0 ? found : undefined;
  });
  expect(rows).toHaveLength(1);
  const admin = connection.kafka.admin();
  await admin.connect();
  try {
    const dead = await eventually(async () => {
      const offsets = await admin.fetchTopicOffsets(connection.topic(INTAKE_DEAD_LETTERS.name));
      return offsets.some((o) => o.high === '1') ? offsets : undefined;
    });
    expect(dead.map((o) => o.high)).toContain('1');
  } finally {
    await admin.disconnect();
  }
  await new Promise((r) => setTimeout(r, 500));
  expect(await ds.query(`SELECT count(*)::int AS n FROM "${name}".deliveries WHERE umid = $1`, [umid])).toEqual([{ n: 1 }]);
});

it('passes over status changes with nowhere to go without opening a transaction or recording them', async () => {
  const umid = randomUUID();
  // No callback URL, and the account has no default one.
  const event = statusEvent(umid, 'MessageDelivered', 3, 'quiet', { dlrCallbackUrl: null, deliveredAt: new Date().toISOString() });
  const transactions = jest.spyOn(ds, 'transaction');
  try {
    await producer.send(SMS_BATCH_EVENT_TOPIC, [{ key: event.streamId, value: event, headers: { 'message-type': 'MessageDelivered' } }]);
    // Handled once the group's committed offsets reach the topic's end.
    await committedToEnd(connection, INTAKE_GROUP, connection.topic(SMS_BATCH_EVENT_TOPIC));
    expect(transactions).not.toHaveBeenCalled();
    expect(await ds.query(`SELECT count(*)::int AS n FROM "${name}".processed_messages WHERE message_id = $1`, [event.eventId])).toEqual([{ n: 0 }]);
    expect(await ds.query(`SELECT count(*)::int AS n FROM "${name}".deliveries WHERE umid = $1`, [umid])).toEqual([{ n: 0 }]);
  } finally {
    transactions.mockRestore();
  }
});

it('commits the handled offsets on its interval while it runs and at the latest when it stops', async () => {
  const umid = randomUUID();
  const key = `sms-message-${umid}`;
  const events = [1, 2, 3].map((n) => ({
    eventId: randomUUID(),
    type: 'MessageAccepted',
    schemaVersion: 1,
    streamId: key,
    streamPosition: n,
    occurredAt: new Date().toISOString(),
    correlationId: 'c',
    causationId: null,
    traceparent: null,
    data: { umid },
  }));
  await producer.send(SMS_BATCH_EVENT_TOPIC, events.map((value) => ({ key, value, headers: {} })));
  const admin = connection.kafka.admin();
  await admin.connect();
  try {
    const topic = connection.topic(SMS_BATCH_EVENT_TOPIC);
    const ends = new Map((await admin.fetchTopicOffsets(topic)).map((o) => [o.partition, o.high]));
    const committedAtEnd = async () => {
      const [committed] = await admin.fetchOffsets({ groupId: connection.group(INTAKE_GROUP), topics: [topic] });
      // A partition nothing was ever written to has no committed offset (-1).
      return committed?.partitions.every((p) => p.offset === ends.get(p.partition) || (p.offset === '-1' && ends.get(p.partition) === '0')) ? true : undefined;
    };
    // Without stopping: what a dispatcher that dies now leaves its group (at most an interval behind).
    expect(await eventually(committedAtEnd)).toBe(true);
    await consumer.stop();
    expect(await committedAtEnd()).toBe(true);
  } finally {
    await admin.disconnect();
  }
});
