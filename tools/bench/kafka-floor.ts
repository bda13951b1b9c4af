// The Kafka part of `npm run bench:floors`: a message's four events published on an event topic as
// the outbox relay publishes them (the platform's MessageProducer, its envelope as JSON text, keyed
// by stream, BENCH_KAFKA_RECORDS_A_SEND records a request, one request after the other), then read
// back once by a consumer group, as the webhook dispatcher reads them (kafkajs, whole batches, no
// parsing). Counted: this process and the broker.
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { MessageHeader } from '@seed/contracts';
import { kafkaClientOptions } from '@seed/platform-config';
import { CONSUMER_SETTINGS, EncodedJson, ensureTopics, eventTopic, KafkaConnection, MessageProducer, parseBrokers, type OutgoingRecord } from '@seed/platform-kafka';

export interface KafkaFloor {
  /** Publishes `events` (stream id, type and body as JSON text) while the consumer is paused. */
  publish(events: readonly { streamId: string; type: string; body: string }[]): Promise<void>;
  /** Lets the consumer read what was published, and waits until it has. */
  read(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Records a request: by default 2,000, the most the relay's follower hands the producer at once (a
 * full batch of the log), so the figure is the least this costs; a request's cost is mostly per
 * request, so fewer records a request cost more each (docs/adr/0103-outbox-relay-lingers.md).
 */
export const RECORDS_A_SEND = Number(process.env['BENCH_KAFKA_RECORDS_A_SEND'] ?? 2000);

export async function startKafkaFloor(): Promise<KafkaFloor> {
  const list = process.env['KAFKA_BROKERS'];
  if (!list) throw new Error('no broker: set KAFKA_BROKERS or start the local one (npm run infra:up)');
  const brokers = parseBrokers(list);
  const { security } = kafkaClientOptions({ ...process.env, KAFKA_BROKERS: brokers.join(',') });
  const prefix = `bench-floors-${Date.now().toString(36)}.`;
  const connection = new KafkaConnection({ brokers, clientId: 'bench-floors', prefix, replicationFactor: 1, security }, pino({ level: 'fatal' }));
  const topic = eventTopic('events');
  await ensureTopics(connection, [topic]);
  const producer = new MessageProducer(connection);
  await producer.connect();
  const consumer = connection.kafka.consumer({ groupId: connection.group('reader'), ...CONSUMER_SETTINGS });
  await consumer.connect();
  await consumer.subscribe({ topic: connection.topic(topic.name), fromBeginning: true });
  let read = 0;
  let published = 0;
  let onRead: (() => void) | null = null;
  const paused = [{ topic: connection.topic(topic.name) }];
  await consumer.run({
    autoCommit: false,
    partitionsConsumedConcurrently: 3,
    eachBatch: async ({ batch }) => {
      read += batch.messages.length;
      onRead?.();
    },
  });
  consumer.pause(paused);
  return {
    async publish(events) {
      const records: OutgoingRecord[] = events.map((e, i) => ({
        key: e.streamId,
        value: new EncodedJson(
          `{"eventId":"${randomUUID()}","type":"${e.type}","schemaVersion":1,"streamId":"${e.streamId}","streamPosition":${(i % 4) + 1},"globalPosition":"${i}"` +
            `,"occurredAt":"${new Date().toISOString()}","correlationId":"carrier","causationId":null,"traceparent":null,"data":${e.body}}`,
        ),
        headers: { [MessageHeader.MessageId]: randomUUID(), [MessageHeader.MessageType]: e.type, [MessageHeader.CorrelationId]: 'carrier' },
      }));
      // One send after the other, as the relay's follower hands over one batch of the log at a time.
      for (let from = 0; from < records.length; from += RECORDS_A_SEND) await producer.send(topic.name, records.slice(from, from + RECORDS_A_SEND));
      published += records.length;
    },
    async read() {
      const allRead = new Promise<void>((resolve) => {
        onRead = () => {
          if (read >= published) resolve();
        };
      });
      consumer.resume(paused);
      await allRead;
      consumer.pause(paused);
      onRead = null;
    },
    async stop() {
      await consumer.disconnect();
      await producer.disconnect();
    },
  };
}
