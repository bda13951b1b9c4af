import { connect } from 'node:net';
import { Kafka, logLevel, type ISocketFactory } from 'kafkajs';
import { MessageHeader } from '@seed/contracts';
import { testKafka, testLogger, uniqueName } from '@seed/platform-testing';
import { CommandBus } from './command-bus';
import type { KafkaConnection } from './kafka-connection';
import { deleteTopicsAndGroups } from './kafka.test-helpers';
import { MessageProducer } from './message-producer';
import { commandTopic, ensureTopics, replyTopic } from './topic-spec';

/** Kafka protocol api key of JoinGroup. */
const JOIN_GROUP = 11;

/**
 * Sockets that break the connection carrying the first JoinGroup request. kafkajs answers that as
 * it answers a group coordinator that is still loading (a new broker's first minutes): it crashes
 * the consumer and starts it again a moment later.
 */
function breakingFirstJoin(): ISocketFactory {
  let broken = false;
  return ({ host, port, onConnect }) => {
    const socket = connect({ host, port }, onConnect);
    const write = socket.write.bind(socket) as (chunk: unknown, ...rest: unknown[]) => boolean;
    socket.write = ((chunk: unknown, ...rest: unknown[]) => {
      if (!broken && Buffer.isBuffer(chunk) && chunk.length >= 6 && chunk.readInt16BE(4) === JOIN_GROUP) {
        broken = true;
        socket.destroy(new Error('connection broken at the first JoinGroup'));
        return false;
      }
      return write(chunk, ...rest);
    }) as typeof socket.write;
    return socket;
  };
}

describe('CommandBus whose reply consumer crashes before its first join', () => {
  const kafka = testKafka(uniqueName('it_bus_rejoin'));
  let producer: MessageProducer;
  let bus: CommandBus;

  beforeAll(async () => {
    await ensureTopics(kafka, [commandTopic('pings'), replyTopic('replies')]);
    producer = new MessageProducer(kafka);
  });

  afterAll(async () => {
    await bus?.stop();
    await producer?.disconnect();
    await deleteTopicsAndGroups(kafka);
  });

  it('starts once kafkajs has started the consumer again, and reads the reply addressed to it', async () => {
    const client = new Kafka({ clientId: 'it-rejoin', brokers: kafka.settings.brokers, socketFactory: breakingFirstJoin(), logLevel: logLevel.NOTHING });
    const connection = { settings: kafka.settings, logger: kafka.logger, kafka: client, topic: (n: string) => kafka.topic(n), group: (n: string) => kafka.group(n) } as KafkaConnection;
    bus = new CommandBus(connection, producer, testLogger(), { replyTopic: 'replies', instanceId: 'one', timeoutMs: 20_000 });
    await bus.start();

    const reply = bus.request<{ pong: boolean }>('pings', 'k', { commandId: 'c-1', type: 'Ping', issuedAt: new Date().toISOString(), data: {} }, 'c-1');
    // Nobody consumes the command: the reply is written here, as the owning service would.
    await producer.send('replies', [{ key: 'c-1', value: { ok: true, result: { pong: true } }, headers: { [MessageHeader.CausationId]: 'c-1' } }]);
    expect(await reply).toEqual({ ok: true, result: { pong: true } });
  });
});
