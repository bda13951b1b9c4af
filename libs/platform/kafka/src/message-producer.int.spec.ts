import { createServer, connect, type Server, type Socket } from 'node:net';
import { Kafka, logLevel } from 'kafkajs';
import { eventually, freePort, testKafka, uniqueName } from '@seed/platform-testing';
import type { KafkaConnection } from './kafka-connection';
import { deleteTopicsAndGroups, jsonOf, TopicRecorder } from './kafka.test-helpers';
import { MessageProducer } from './message-producer';
import { ensureTopics, eventTopic } from './topic-spec';

let kafka: KafkaConnection;
let recorder: TopicRecorder;
const producers: MessageProducer[] = [];

beforeAll(async () => {
  kafka = testKafka(uniqueName('it_producer'));
  await ensureTopics(kafka, [eventTopic('events')]);
  recorder = await new TopicRecorder(kafka, ['events']).start();
});

afterAll(async () => {
  await Promise.all(producers.map((p) => p.disconnect()));
  await recorder?.stop();
  if (kafka) await deleteTopicsAndGroups(kafka);
});

describe('MessageProducer', () => {
  it('resolves a send only once the broker holds the records, JSON-encoded on the prefixed topic', async () => {
    const producer = new MessageProducer(kafka);
    producers.push(producer);
    const records = ['a', 'b', 'c'].map((key, i) => ({ key, value: { i, text: 'héllo' }, headers: { 'message-id': `m-${i}` } }));
    await producer.send('events', records);

    const admin = kafka.kafka.admin();
    await admin.connect();
    // A topic created moments ago (12 partitions) may still answer "not the leader" to a list-offsets
    // request for a partition the send did not touch: asked again, it answers.
    const offsets = await eventually(() => admin.fetchTopicOffsets(kafka.topic('events')), 10_000).finally(() => admin.disconnect());
    expect(offsets.reduce((sum, p) => sum + Number(p.high), 0)).toBe(3);

    await eventually(async () => (recorder.of('events').length >= 3 ? true : undefined));
    const received = recorder.of('events').sort((x, y) => (x.key ?? '').localeCompare(y.key ?? ''));
    expect(received.map((r) => [r.key, jsonOf(r), r.headers['message-id']])).toEqual(records.map((r) => [r.key, r.value, r.headers['message-id']]));
  });

  it('coalesces concurrent sends into few requests, keeping each key in call order and resolving every caller', async () => {
    const producer = new MessageProducer(kafka);
    producers.push(producer);
    await producer.connect();
    const requests: number[] = [];
    const onRequest = producer['producer'].on(producer['producer'].events.REQUEST, (e: { payload: { apiName: string } }) => {
      if (e.payload.apiName === 'Produce') requests.push(1);
    });
    const sends = Array.from({ length: 200 }, (_, i) =>
      producer.send('events', [{ key: `order-${i % 4}`, value: { seq: i }, headers: {} }]),
    );
    await Promise.all(sends);
    onRequest();
    // One request per round trip, not one per send: the first goes alone, the rest wait together.
    expect(requests.length).toBeLessThan(20);
    await eventually(async () => (recorder.of('events').filter((r) => r.key?.startsWith('order-')).length >= 200 ? true : undefined));
    for (let k = 0; k < 4; k++) {
      const seqs = recorder.of('events').filter((r) => r.key === `order-${k}`).map((r) => (jsonOf(r) as { seq: number }).seq);
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
      expect(seqs).toHaveLength(50);
    }
  });

  it('connects again on the next send when the broker was unreachable at the first attempt', async () => {
    const port = await freePort();
    const producer = new MessageProducer(connectionThrough(port));
    producers.push(producer);
    await expect(producer.connect()).rejects.toThrow();

    const proxy = await forward(port, process.env['KAFKA_BROKERS']!.split(',')[0]!);
    try {
      await producer.send('events', [{ key: 'late', value: { late: true }, headers: {} }]);
    } finally {
      await producer.disconnect();
      proxy.close();
    }
    await eventually(async () => recorder.of('events').find((r) => r.key === 'late'));
  });
});

/**
 * The test's own connection (same prefix) whose only seed broker is a local port, and which gives
 * up at once: the real one retries for half a minute before reporting the broker unreachable.
 */
function connectionThrough(port: number): KafkaConnection {
  const client = new Kafka({
    clientId: 'it-producer',
    brokers: [`127.0.0.1:${port}`],
    retry: { retries: 1, initialRetryTime: 50, maxRetryTime: 100 },
    logLevel: logLevel.NOTHING,
  });
  const { settings, logger } = kafka;
  return { settings, logger, kafka: client, topic: (n: string) => kafka.topic(n), group: (n: string) => kafka.group(n) } as KafkaConnection;
}

/** A TCP forwarder to the real broker: "the broker is back". */
function forward(port: number, target: string): Promise<Server> {
  const [host, targetPort] = target.split(':');
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(Number(targetPort), host);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => sockets.delete(s));
    }
    client.pipe(upstream).pipe(client);
  });
  const close = server.close.bind(server);
  server.close = (callback) => {
    for (const s of sockets) s.destroy();
    return close(callback);
  };
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}
