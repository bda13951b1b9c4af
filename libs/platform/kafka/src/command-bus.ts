import type { Logger } from 'pino';
import { MessageHeader, type CommandMessage, type CommandReply } from '@seed/contracts';
import type { KafkaConnection } from './kafka-connection';
import type { MessageProducer } from './message-producer';
import { ResilientConsumer } from './resilient-consumer';
import { inSpan, onwardTraceparent, SpanKind } from '@seed/platform-telemetry';
import { BrokerWatch } from './broker-watch';
import { withTimeout } from './with-timeout';

const failure = (message: string, retryAfterSeconds: number): CommandReply => ({ ok: false, failure: { status: 503, code: 2000, message, retryAfterSeconds } });
const BROKER_UNAVAILABLE = failure('the message broker is unavailable; try again', 5);
const TIMED_OUT = failure('the service did not answer in time; try again', 5);
const SHUTTING_DOWN = failure('shutting down', 1);
const SEND_STALL_MS = 1000;

/** A start that waits longer gives up and is retried from the beginning (StartDeadline). */
const JOIN_TIMEOUT_MS = 30_000;

interface Pending {
  resolve: (reply: CommandReply) => void;
  timer: NodeJS.Timeout;
}

export interface CommandBusOptions {
  replyTopic: string;
  /** Unique per process: every instance reads all reply partitions in its own group. */
  instanceId: string;
  timeoutMs: number;
}

/**
 * Request-reply over Kafka for the gateway. Each instance reads the whole reply topic in a group
 * of its own, starting at the end as it was before the first request, so no reply addressed to
 * it can be missed; replies to other instances are ignored.
 */
export class CommandBus {
  private readonly pending = new Map<string, Pending>();
  /** Per reply partition, the next offset to read. */
  private readonly positions = new Map<number, string>();
  private consumer: ResilientConsumer | undefined;
  private readonly watch: BrokerWatch;

  constructor(
    private readonly connection: KafkaConnection,
    private readonly producer: MessageProducer,
    private readonly logger: Logger,
    private readonly options: CommandBusOptions,
  ) {
    // Requests already waiting when the broker is found down keep waiting for their reply until
    // their timeout: their command may be in the topic, and the services decide a command until
    // that deadline (then refuse it), so a 503 given earlier would not mean "not done" — the
    // command could be decided once the broker is back, after its client was told to retry. New
    // requests are refused at once (`request`), before anything is sent.
    this.watch = new BrokerWatch(connection, logger, { probeTopic: options.replyTopic });
  }

  async start(): Promise<void> {
    const topic = this.connection.topic(this.options.replyTopic);
    for (const { partition, offset } of await this.replyTopicEnds(topic)) this.positions.set(partition, offset);
    // Replies are read from the positions above, never from a committed offset: committing one
    // per reply would only load the broker. Every join (the first, and each after kafkajs
    // restarted a crashed consumer, e.g. while a new broker's group coordinator was still loading)
    // starts each partition where this instance left off: at the end the topic had before the
    // first request, or after the last reply read.
    const consumer = new ResilientConsumer(this.connection, this.producer, this.logger, {
      groupId: `${this.options.replyTopic}.${this.options.instanceId}`,
      topics: [this.options.replyTopic],
      partitionsConsumedConcurrently: 3,
      onCrash: (error) => this.watch.suspect(error),
    });
    this.consumer = consumer;
    try {
      const { joined } = await consumer.startReader(
        (record) => {
          this.positions.set(record.partition, String(Number(record.offset) + 1));
          const commandId = record.headers[MessageHeader.CausationId];
          // A reply for another instance, or one that timed out, has no one waiting.
          if (commandId && record.value && this.pending.has(commandId)) this.answer(commandId, JSON.parse(record.value.toString()) as CommandReply);
        },
        () => this.positions,
      );
      await withTimeout(joined, JOIN_TIMEOUT_MS, `the reply consumer did not join its group within ${JOIN_TIMEOUT_MS} ms`);
      await this.producer.connect();
    } catch (error) {
      this.consumer = undefined;
      await consumer.stop().catch(() => undefined);
      throw error;
    }
  }

  /** Where the reply topic ends now; retried while a just-created topic's leadership settles. */
  private async replyTopicEnds(topic: string): Promise<{ partition: number; offset: string }[]> {
    const admin = this.connection.kafka.admin();
    await admin.connect();
    try {
      for (let attempt = 1; ; attempt++) {
        try {
          return await admin.fetchTopicOffsets(topic);
        } catch (error) {
          if (attempt >= 20) throw error;
          this.logger.warn({ err: error, attempt }, 'reply topic offsets not available yet; retrying');
          await new Promise((resolve) => setTimeout(resolve, 250));
        }
      }
    } finally {
      await admin.disconnect();
    }
  }

  async request<TResult>(
    topic: string,
    key: string,
    command: CommandMessage,
    correlationId: string,
    traceparent: string | null = null,
  ): Promise<CommandReply<TResult>> {
    if (!(await this.watch.available())) return BROKER_UNAVAILABLE as CommandReply<TResult>;
    // A span for the round trip, in the caller's trace (or the stored event's that this command follows).
    const attributes = { 'messaging.system': 'kafka', 'messaging.destination.name': topic, 'messaging.operation': 'send' };
    return inSpan(`${command.type} send`, { kind: SpanKind.PRODUCER, ...(traceparent ? { parent: traceparent } : {}), attributes }, () =>
      this.send<TResult>(topic, key, command, correlationId, onwardTraceparent(traceparent)),
    );
  }

  private async send<TResult>(topic: string, key: string, command: CommandMessage, correlationId: string, traceparent: string | null): Promise<CommandReply<TResult>> {
    const reply = new Promise<CommandReply>((resolve) => {
      const timer = setTimeout(() => this.answer(command.commandId, TIMED_OUT), this.options.timeoutMs);
      this.pending.set(command.commandId, { resolve, timer });
    });
    // A send the broker has not acknowledged within a second is unusual enough to probe it.
    const stall = setTimeout(() => this.watch.suspect(new Error(`a send waited ${SEND_STALL_MS} ms for the broker`)), SEND_STALL_MS);
    this.producer
      .send(topic, [
        {
          key,
          value: command,
          headers: {
            [MessageHeader.MessageId]: command.commandId,
            [MessageHeader.MessageType]: command.type,
            [MessageHeader.CorrelationId]: correlationId,
            [MessageHeader.ReplyTo]: this.options.replyTopic,
            ...(traceparent ? { [MessageHeader.Traceparent]: traceparent } : {}),
          },
        },
      ])
      .catch((error: unknown) => {
        // Not answered here: a send that failed on a lost connection may still have been written,
        // and be decided before its deadline. The request waits for a reply or its timeout.
        // A warning: the request is answered (its reply, or a 503 at its deadline) and the broker
        // watch reports an outage once.
        this.logger.warn({ err: error, topic }, 'command could not be sent (or its acknowledgement was lost)');
        this.watch.suspect(error);
      })
      .finally(() => clearTimeout(stall));
    return (await reply) as CommandReply<TResult>;
  }

  /** Resolves a request still waiting (with its reply, or a failure); later answers are ignored. */
  private answer(commandId: string, reply: CommandReply): void {
    const waiting = this.pending.get(commandId);
    if (!waiting) return;
    this.pending.delete(commandId);
    clearTimeout(waiting.timer);
    waiting.resolve(reply);
  }

  async stop(): Promise<void> {
    this.watch.stop();
    for (const id of [...this.pending.keys()]) this.answer(id, SHUTTING_DOWN);
    await this.consumer?.stop();
  }
}

