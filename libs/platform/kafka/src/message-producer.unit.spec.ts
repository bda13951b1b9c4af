import { KafkaJSNumberOfRetriesExceeded, KafkaJSProtocolError, type Producer, type ProducerBatch } from 'kafkajs';
import { testLogger } from '@seed/platform-testing';
import type { KafkaConnection } from './kafka-connection';
import { MessageProducer } from './message-producer';

/** A broker answer kafkajs turns into a KafkaJSProtocolError, as its protocol decoder builds it. */
const brokerAnswer = (type: string) => new KafkaJSProtocolError({ type, code: 45, retriable: false, message: `broker answered ${type}` } as unknown as Error);

/**
 * kafkajs producers that fail their sends with the answers given, in order (then succeed), and the
 * connection that makes them: which producer each send went through is what the tests look at.
 */
function fakeKafka(answers: (Error | undefined)[]) {
  const producers: { connect: jest.Mock; disconnect: jest.Mock; sendBatch: jest.Mock; sent: ProducerBatch[] }[] = [];
  const connection = {
    topic: (name: string) => name,
    logger: testLogger(),
    kafka: {
      producer: () => {
        const sent: ProducerBatch[] = [];
        const producer = {
          sent,
          connect: jest.fn(async () => undefined),
          disconnect: jest.fn(async () => undefined),
          sendBatch: jest.fn(async (batch: ProducerBatch) => {
            const answer = answers.shift();
            if (answer) throw answer;
            sent.push(batch);
            return [];
          }),
        };
        producers.push(producer);
        return producer as unknown as Producer;
      },
    },
  } as unknown as KafkaConnection;
  return { connection, producers };
}

const record = (key: string) => ({ key, value: { key }, headers: {} });

describe('MessageProducer', () => {
  it('sends through a new producer once the broker stops accepting its sequence numbers, failing only the send that met it', async () => {
    const { connection, producers } = fakeKafka([brokerAnswer('OUT_OF_ORDER_SEQUENCE_NUMBER')]);
    const producer = new MessageProducer(connection);
    await expect(producer.send('topic', [record('a')])).rejects.toThrow(/OUT_OF_ORDER_SEQUENCE_NUMBER/);
    await producer.send('topic', [record('b')]);
    await producer.send('topic', [record('c')]);
    expect(producers).toHaveLength(2);
    expect(producers[0]?.disconnect).toHaveBeenCalled();
    expect(producers[1]?.connect).toHaveBeenCalledTimes(1);
    expect(producers[1]?.sent.flatMap((batch) => batch.topicMessages?.flatMap((t) => t.messages.map((m) => m.key)) ?? [])).toEqual(['b', 'c']);
    expect(producer.renewals).toBe(1);
  });

  it('finds the answer inside the errors kafkajs wraps it in (its retries exceeded)', async () => {
    const wrapped = new KafkaJSNumberOfRetriesExceeded(brokerAnswer('UNKNOWN_PRODUCER_ID'), { retryCount: 5, retryTime: 100 });
    const { connection, producers } = fakeKafka([wrapped]);
    const producer = new MessageProducer(connection);
    await expect(producer.send('topic', [record('a')])).rejects.toBe(wrapped);
    await producer.send('topic', [record('b')]);
    expect(producers).toHaveLength(2);
  });

  it('keeps its producer after any other failure (a leader moving, the broker away), whose retries kafkajs handles', async () => {
    const { connection, producers } = fakeKafka([brokerAnswer('NOT_LEADER_FOR_PARTITION'), new Error('Connection error: connect ECONNREFUSED')]);
    const producer = new MessageProducer(connection);
    await expect(producer.send('topic', [record('a')])).rejects.toThrow();
    await expect(producer.send('topic', [record('b')])).rejects.toThrow();
    await producer.send('topic', [record('c')]);
    expect(producers).toHaveLength(1);
    expect(producer.renewals).toBe(0);
  });
});
