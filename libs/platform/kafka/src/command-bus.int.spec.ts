import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { Controller, Module, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import { MessageHeader, type CommandMessage, type CommandReply } from '@seed/contracts';
import { eventually, testKafka, testLogger, uniqueName } from '@seed/platform-testing';
import { CommandBus } from './command-bus';
import { KafkaCommandServer, type CommandContext } from './command-server';
import type { KafkaConnection } from './kafka-connection';
import { deleteTopicsAndGroups, jsonOf, TopicRecorder } from './kafka.test-helpers';
import { MessageProducer } from './message-producer';
import { commandTopic, deadLetterTopic, ensureTopics, replyTopic } from './topic-spec';

const COMMANDS = 'ping.commands';
/** A topic a neighbouring service may write: only Ping is taken from it. */
const NEIGHBOUR_COMMANDS = 'ping.neighbour-commands';
const NOBODY = 'nobody.commands';
const REPLIES = 'gateway.replies.v1';

const received: CommandMessage<{ text: string }>[] = [];

interface PingResult {
  pong: string;
  context: CommandContext;
}

@Controller()
class PingController {
  @MessagePattern('Ping')
  ping(@Payload() command: CommandMessage<{ text: string }>, @Ctx() context: CommandContext): CommandReply<PingResult> {
    received.push(command);
    return { ok: true, result: { pong: command.data.text.toUpperCase(), context } };
  }

  /** An operator's command: never to be run from the neighbours' topic. */
  @MessagePattern('Reset')
  reset(@Payload() command: CommandMessage<{ text: string }>): CommandReply<{ reset: true }> {
    received.push(command);
    return { ok: true, result: { reset: true } };
  }
}

@Module({ controllers: [PingController] })
class PingModule {}

let kafka: KafkaConnection;
let serverProducer: MessageProducer;
let busProducer: MessageProducer;
let app: INestApplication | undefined;
let bus: CommandBus;
let impatientBus: CommandBus;
let deadLetters: TopicRecorder;

const command = (type: string, text: string): CommandMessage<{ text: string }> => ({
  commandId: randomUUID(),
  type,
  issuedAt: new Date().toISOString(),
  data: { text },
});

beforeAll(async () => {
  kafka = testKafka(uniqueName('it_command_bus'));
  await ensureTopics(kafka, [commandTopic(COMMANDS), commandTopic(NEIGHBOUR_COMMANDS), deadLetterTopic(COMMANDS), commandTopic(NOBODY), replyTopic(REPLIES)]);
  const logger = testLogger();
  serverProducer = new MessageProducer(kafka);
  busProducer = new MessageProducer(kafka);

  app = await NestFactory.create(PingModule, { logger: false });
  app.connectMicroservice({
    strategy: new KafkaCommandServer({ connection: kafka, producer: serverProducer, logger, topic: COMMANDS, groupId: 'ping-service', limitedTopics: { [NEIGHBOUR_COMMANDS]: ['Ping'] } }),
  });
  await app.startAllMicroservices();
  await app.init();

  bus = new CommandBus(kafka, busProducer, logger, { replyTopic: REPLIES, instanceId: 'gateway-1', timeoutMs: 20_000 });
  impatientBus = new CommandBus(kafka, busProducer, logger, { replyTopic: REPLIES, instanceId: 'gateway-2', timeoutMs: 1500 });
  await bus.start();
  await impatientBus.start();
  deadLetters = await new TopicRecorder(kafka, [deadLetterTopic(COMMANDS).name]).start();
});

afterAll(async () => {
  await app?.close();
  await bus?.stop();
  await impatientBus?.stop();
  await deadLetters?.stop();
  await serverProducer?.disconnect();
  await busProducer?.disconnect();
  if (kafka) await deleteTopicsAndGroups(kafka);
});

describe('CommandBus and KafkaCommandServer', () => {
  it('answers a request with the reply of the @MessagePattern handler, with the correlation carried through', async () => {
    const ping = command('Ping', 'hello');
    const reply = await bus.request<PingResult>(COMMANDS, 'key-1', ping, 'corr-hello');

    expect(reply).toEqual({
      ok: true,
      result: { pong: 'HELLO', context: { correlationId: 'corr-hello', causationId: ping.commandId, traceparent: null, topic: expect.stringMatching(/\.ping\.commands$/) } },
    });
    expect(received.filter((c) => c.commandId === ping.commandId)).toHaveLength(1);
  });

  it('answers several concurrent requests, each with its own reply', async () => {
    const pings = ['a', 'b', 'c', 'd', 'e'].map((text) => command('Ping', text));
    const replies = await Promise.all(pings.map((p, i) => bus.request<{ pong: string }>(COMMANDS, `key-${i}`, p, `corr-${i}`)));
    expect(replies.map((r) => (r.ok ? r.result.pong : r.failure.message))).toEqual(['A', 'B', 'C', 'D', 'E']);
  });

  it('dead-letters a command nobody handles and answers the waiting requester with a 500 instead of letting it hang', async () => {
    const unknown = command('Pong', 'nobody listens');
    const started = Date.now();
    const reply = await bus.request(COMMANDS, 'key-2', unknown, 'corr-unknown');

    expect(Date.now() - started).toBeLessThan(10_000); // far below the bus's own 20 s timeout
    expect(reply).toEqual({ ok: false, failure: { status: 500, code: 2000, message: expect.any(String) } });

    const dead = await eventually(async () =>
      deadLetters.of(deadLetterTopic(COMMANDS).name).find((r) => r.headers[MessageHeader.MessageId] === unknown.commandId),
    );
    expect(jsonOf(dead)).toEqual(unknown);
    // The reason goes to the dead letter, for the operator; the client only learns that it failed.
    expect(dead.headers[MessageHeader.DeadLetterReason]).toBe('PermanentMessageError: no handler for command type Pong');
    expect(dead.headers[MessageHeader.ReplyTo]).toBe(REPLIES);

    // The server goes on with the next command.
    const after = await bus.request<{ pong: string }>(COMMANDS, 'key-2', command('Ping', 'still here'), 'corr-after');
    expect(after).toMatchObject({ ok: true, result: { pong: 'STILL HERE' } });
  });

  it('dead-letters, without running it, a command whose reply-to names a topic that is not a reply topic', async () => {
    // A sender able to write commands must not make this service write into its own event topic.
    const forged = command('Ping', 'forged');
    await busProducer.send(COMMANDS, [
      { key: 'key-f', value: forged, headers: { [MessageHeader.MessageId]: forged.commandId, [MessageHeader.ReplyTo]: 'ping.events.v1' } },
    ]);
    const dead = await eventually(async () =>
      deadLetters.of(deadLetterTopic(COMMANDS).name).find((r) => r.headers[MessageHeader.MessageId] === forged.commandId),
    );
    expect(dead.headers[MessageHeader.DeadLetterReason]).toContain('is not a reply topic');
    expect(received.filter((c) => c.commandId === forged.commandId)).toHaveLength(0);
  });

  it('takes from a limited topic only the types it carries: a forged operator command there is dead-lettered and not run', async () => {
    const ping = await bus.request<{ pong: string }>(NEIGHBOUR_COMMANDS, 'key-n', command('Ping', 'neighbour'), 'corr-neighbour');
    expect(ping).toMatchObject({ ok: true, result: { pong: 'NEIGHBOUR' } });

    const forged = command('Reset', 'forged by a neighbour');
    const reply = await bus.request(NEIGHBOUR_COMMANDS, 'key-n', forged, 'corr-forged');
    expect(reply).toEqual({ ok: false, failure: { status: 500, code: 2000, message: expect.any(String) } });
    const dead = await eventually(async () =>
      deadLetters.of(deadLetterTopic(COMMANDS).name).find((r) => r.headers[MessageHeader.MessageId] === forged.commandId),
    );
    expect(dead.headers[MessageHeader.DeadLetterReason]).toMatch(/command type Reset is not taken from .*ping\.neighbour-commands: its writers may send only Ping/);
    expect(dead.headers[MessageHeader.DeadLetterSourceTopic]).toBe(kafka.topic(NEIGHBOUR_COMMANDS));
    expect(received.filter((c) => c.commandId === forged.commandId)).toHaveLength(0);

    // The same command on the service's own topic (its writers' ACLs allow it) runs.
    expect(await bus.request(COMMANDS, 'key-n', command('Reset', 'from the operator'), 'corr-reset')).toEqual({ ok: true, result: { reset: true } });
  });

  it('gives the 503 failure when no service answers in time, and ignores replies addressed to another instance', async () => {
    const started = Date.now();
    const reply = await impatientBus.request(NOBODY, 'key-3', command('Ping', 'anyone?'), 'corr-timeout');
    expect(Date.now() - started).toBeGreaterThanOrEqual(1400);
    expect(reply).toEqual({
      ok: false,
      failure: { status: 503, code: 2000, message: expect.any(String), retryAfterSeconds: 5 },
    });

    // Both buses read the same reply topic; each resolves only its own requests.
    const [mine, theirs] = await Promise.all([
      impatientBus.request<{ pong: string }>(COMMANDS, 'key-4', command('Ping', 'mine'), 'corr-mine'),
      bus.request<{ pong: string }>(COMMANDS, 'key-4', command('Ping', 'theirs'), 'corr-theirs'),
    ]);
    expect([mine, theirs].map((r) => (r.ok ? r.result.pong : `failed ${r.failure.status}`))).toEqual(['MINE', 'THEIRS']);
  });
});
