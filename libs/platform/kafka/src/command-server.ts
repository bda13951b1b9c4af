import { randomUUID } from 'node:crypto';
import { Server, type CustomTransportStrategy } from '@nestjs/microservices';
import { lastValueFrom } from 'rxjs';
import type { Logger } from 'pino';
import { MessageHeader, type CommandMessage, type CommandReply } from '@seed/contracts';
import { runWithCorrelation } from '@seed/platform-logging';
import type { KafkaConnection } from './kafka-connection';
import type { IncomingRecord } from './kafka-record';
import type { MessageProducer } from './message-producer';
import { inSpan, onwardTraceparent, SpanKind } from '@seed/platform-telemetry';
import { PermanentMessageError, ResilientConsumer } from './resilient-consumer';
import { deadLetterTopic } from './topic-spec';

/** What a command handler learns about the record besides the command. */
export interface CommandContext {
  correlationId: string;
  causationId: string;
  traceparent: string | null;
  /** The topic the command came on (with the installation's prefix); absent for a command built in-process. */
  topic?: string;
}

const UNAVAILABLE = { status: 503, code: 2000, message: 'a dependency is unavailable; try again later', retryAfterSeconds: 10 };
const UNAVAILABLE_AFTER_MS = 1500;

/** Runs a start-up step until it succeeds or the service's start-up time is up (StartDeadline.retry). */
export type StartRetry = <T>(what: string, step: () => Promise<T>) => Promise<T>;

export interface CommandServerOptions {
  connection: KafkaConnection;
  producer: MessageProducer;
  logger: Logger;
  topic: string;
  groupId: string;
  isPermanent?: (error: unknown) => boolean;
  /**
   * Commands decided at once, one per partition (per-key order holds). A command mostly waits on
   * PostgreSQL and Kafka round trips, so a topic with more partitions and a higher value raise
   * throughput. Default 3.
   */
  concurrency?: number;
  /** How the consumer's start is retried while the broker gets ready; without it, it is tried once. */
  retryStart?: StartRetry;
  /**
   * Further command topics (before KAFKA_TOPIC_PREFIX), each with the only command types it
   * carries. Kafka's ACLs say who may write a topic; this says what its writers may ask: a
   * neighbouring service allowed only such a topic cannot have an operator command run. A command
   * of another type there is dead-lettered unanswered by any handler. `topic` carries every type.
   */
  limitedTopics?: Readonly<Record<string, readonly string[]>>;
}

/**
 * A NestJS transport strategy: commands from a Kafka topic go to `@MessagePattern(<command type>)`
 * handlers, and each handler's `CommandReply` goes back to the `reply-to` topic of the request.
 * Idempotency lives in the handlers (a processed-message record in the same transaction as the
 * effect); this class adds retry, dead-lettering and the reply to a request that gave up.
 */
export class KafkaCommandServer extends Server implements CustomTransportStrategy {
  private consumer: ResilientConsumer | undefined;
  /** The command types of each limited topic, by its name with KAFKA_TOPIC_PREFIX (as records name it). */
  private readonly typesOf: ReadonlyMap<string, ReadonlySet<string>>;

  constructor(private readonly options: CommandServerOptions) {
    super();
    const limited = Object.entries(options.limitedTopics ?? {});
    this.typesOf = new Map(limited.map(([topic, types]) => [options.connection.topic(topic), new Set(types)]));
  }

  async listen(callback: (error?: unknown) => void): Promise<void> {
    const { connection, producer, logger, topic, groupId, isPermanent, concurrency } = this.options;
    const retry: StartRetry = this.options.retryStart ?? ((_what, step) => step());
    this.consumer = new ResilientConsumer(connection, producer, logger, {
      groupId,
      partitionsConsumedConcurrently: concurrency ?? 3,
      ...(isPermanent ? { isPermanent } : {}),
      topics: [topic, ...Object.keys(this.options.limitedTopics ?? {})],
      deadLetterTopic: deadLetterTopic(topic).name,
      // A command whose database (or broker) is down is answered 503 after a short while, as the
      // gateway answers requests during an outage it knows of, rather than after every retry
      // (about 11 s) and a dead letter nobody needs: nothing of it was decided, and its sender
      // retries. A command without a reply-to is retried as before.
      unavailableAfterMs: UNAVAILABLE_AFTER_MS,
      answerUnavailable: async (record) => {
        if (!record.headers[MessageHeader.ReplyTo]) return false;
        await this.reply(record, { ok: false, failure: UNAVAILABLE });
        return true;
      },
      // The reason stays in the service's log and the dead letter's headers; clients learn only that it failed.
      // Retries ran out on a failure that may pass (a dependency down): 503 and try again later.
      onDeadLetter: (record, _reason, permanent) =>
        this.reply(record, {
          ok: false,
          failure: permanent
            ? { status: 500, code: 2000, message: 'internal error: the command could not be processed' }
            : UNAVAILABLE,
        }),
    });
    try {
      await retry('kafka: producer', () => producer.connect());
      const consumer = this.consumer;
      await retry(`kafka: consumer group ${groupId}`, () => consumer.start((record) => this.handleRecord(record)));
      callback();
    } catch (error) {
      callback(error);
    }
  }

  async close(): Promise<void> {
    await this.consumer?.stop();
  }

  on(): void {
    // No transport events to subscribe to: errors surface through the consumer's logs and retries.
  }

  unwrap<T>(): T {
    throw new Error('KafkaCommandServer does not expose its client');
  }

  private async handleRecord(record: IncomingRecord): Promise<void> {
    const command = parseCommand(record);
    const types = this.typesOf.get(record.topic);
    if (types && !types.has(command.type)) throw new PermanentMessageError(`command type ${command.type} is not taken from ${record.topic}: its writers may send only ${[...types].join(', ')}`);
    const replyTo = record.headers[MessageHeader.ReplyTo];
    // The reply goes where the sender says, with this service's own Kafka rights: a reply-to naming
    // an event topic would have it write a forged record into its public log. Only reply topics.
    if (replyTo && !REPLY_TOPIC.test(replyTo)) throw new PermanentMessageError(`reply-to ${JSON.stringify(replyTo)} is not a reply topic (<service>.replies.v<n>)`);
    // The handlers' patterns are plain strings, their own routes: Nest's getHandlerByPattern would
    // first try JSON.parse on the type and build the exception it throws, for every command.
    const handler = this.messageHandlers.get(command.type) ?? this.getHandlerByPattern(command.type);
    if (!handler) throw new PermanentMessageError(`no handler for command type ${command.type}`);
    const received = record.headers[MessageHeader.Traceparent] ?? null;
    // The handling is a span of the sender's trace; what it appends and sends carries this span on.
    await inSpan(`${command.type} process`, { kind: SpanKind.CONSUMER, parent: received, attributes: { 'messaging.system': 'kafka', 'messaging.operation': 'process' } }, async () => {
      const context: CommandContext = {
        correlationId: record.headers[MessageHeader.CorrelationId] ?? command.commandId,
        causationId: command.commandId,
        traceparent: onwardTraceparent(received),
        topic: record.topic,
      };
      await runWithCorrelation(context, async () => {
        const reply = (await lastValueFrom(this.transformToObservable(await handler(command, context)))) as CommandReply;
        await this.reply(record, reply);
      });
    });
  }

  private async reply(record: IncomingRecord, reply: CommandReply): Promise<void> {
    const replyTo = record.headers[MessageHeader.ReplyTo];
    const commandId = record.headers[MessageHeader.MessageId];
    if (!replyTo || !commandId) return; // fire-and-forget command
    if (!REPLY_TOPIC.test(replyTo)) return; // dead-lettered by handleRecord; nothing is written there
    await this.options.producer.send(replyTo, [
      {
        key: commandId,
        value: reply,
        headers: {
          [MessageHeader.MessageId]: randomUUID(),
          [MessageHeader.CausationId]: commandId,
          [MessageHeader.CorrelationId]: record.headers[MessageHeader.CorrelationId] ?? commandId,
        },
      },
    ]);
  }
}

/** The name of every reply topic (before KAFKA_TOPIC_PREFIX): `api-gateway.replies.v1`, ... */
export const REPLY_TOPIC = /^[a-z0-9-]+\.replies\.v[0-9]+$/;

function parseCommand(record: IncomingRecord): CommandMessage {
  try {
    const command = JSON.parse(record.value?.toString() ?? '') as CommandMessage;
    if (typeof command.commandId !== 'string' || typeof command.type !== 'string') throw new Error('missing commandId or type');
    return command;
  } catch (error) {
    throw new PermanentMessageError(`not a command: ${(error as Error).message}`);
  }
}
