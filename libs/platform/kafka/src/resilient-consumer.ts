import type { Consumer, ConsumerRunConfig } from 'kafkajs';
import type { Logger } from 'pino';
import { MessageHeader } from '@seed/contracts';
import { CONSUMER_SETTINGS } from './consumer-settings';
import { CrashRestarter } from './crash-restarter';
import { consumerDeadLetters, recordHandlingFailures, recordHandlingSeconds, typeLabel, unprefixedTopic, type HandlingOutcome } from './consumer.metrics';
import { IntervalOffsetCommitter } from './interval-offset-committer';
import type { KafkaConnection } from './kafka-connection';
import { toIncomingRecord, type IncomingRecord } from './kafka-record';
import type { MessageProducer } from './message-producer';
import { RecordBatch, type BatchHandler, type BatchMessage } from './record-batch';
import { startConsumer } from './start-consumer';

/** A record that can never succeed (not JSON, unknown type): dead-lettered without retries. */
export class PermanentMessageError extends Error {
  override readonly name = 'PermanentMessageError';
}

export interface ConsumerOptions {
  groupId: string;
  topics: string[];
  /** Where records go when handling gives up; without it a failing record stops its partition. */
  deadLetterTopic?: string;
  maxAttempts?: number;
  partitionsConsumedConcurrently?: number;
  /** Failures that retrying cannot cure (beyond PermanentMessageError), e.g. a database's data errors. */
  isPermanent?: (error: unknown) => boolean;
  /** Called after a record was dead-lettered, e.g. to answer the request that is now lost. */
  onDeadLetter?: (record: IncomingRecord, reason: string, permanent: boolean) => Promise<void>;
  /**
   * For records someone is waiting on: once a record has failed transiently for this long, it is
   * handed to `answerUnavailable` instead of being retried on. When that answered (the record had
   * someone to answer), the record counts as handled: not dead-lettered, since its sender was told
   * to try again, and the records behind it are not held up by a dependency that is down.
   */
  unavailableAfterMs?: number;
  /** Answers "unavailable, try again" for the record; false when there is no one to answer. */
  answerUnavailable?: (record: IncomingRecord, reason: string) => Promise<boolean>;
  /** How often handled offsets are committed (default 1000 ms); see the class comment. */
  commitIntervalMs?: number;
  /** Bytes fetched per partition at most (default CONSUMER_SETTINGS'). */
  maxBytesPerPartition?: number;
  /** Told of each crash of the underlying kafkajs consumer (which kafkajs, or else CrashRestarter, starts again). */
  onCrash?: (error: Error) => void;
}

/** Where a reader goes on in each partition of a topic (unprefixed): the next offset to read. */
export type ReaderPositions = (topic: string) => ReadonlyMap<number, string>;

/** The reader's handler: it records where it is (ReaderPositions) and must not throw. */
export type ReadHandler = (record: IncomingRecord) => void;

export type RecordHandler = (record: IncomingRecord) => Promise<void>;

/**
 * A consumer that handles each record, retries it with backoff, or dead-letters it — it never
 * swallows one. Offsets are committed only after the handler (or the dead-letter write) succeeded,
 * so a crash means redelivery; handlers are idempotent by message id.
 *
 * Offsets are committed on a timer and on stop (IntervalOffsetCommitter), not after every fetch:
 * with one command per fetch, that was an OffsetCommit round trip for every command. A crash or a
 * rebalance redelivers up to `commitIntervalMs` of handled records, which the handlers'
 * idempotency already covers.
 *
 * Two modes: `start` hands the handler one record at a time, and does the retries and dead letters
 * itself; `startBatches` hands it each fetch's records of a partition (RecordBatch), to go through
 * in chunks of its own, marking what it handled, with the same commits, retries and dead letters
 * at hand. Either way the records of one partition are handled in order, one fetch after the other.
 * `startReader` commits nothing: a reader of records that matter to this process only while it runs.
 */
export class ResilientConsumer {
  private consumer: Consumer | undefined;
  private restarter: CrashRestarter | undefined;
  private stopping = false;
  private readonly committer: IntervalOffsetCommitter;

  constructor(
    private readonly connection: KafkaConnection,
    private readonly producer: MessageProducer,
    private readonly logger: Logger,
    private readonly options: ConsumerOptions,
  ) {
    this.committer = new IntervalOffsetCommitter(logger, options.groupId, options.commitIntervalMs);
  }

  /** One record at a time: handled, retried (`maxAttempts`) or dead-lettered. */
  async start(handler: RecordHandler): Promise<void> {
    await this.run({
      eachMessage: async ({ topic, partition, message, heartbeat }) => {
        await this.committer.track(this.handleWithRetries(toIncomingRecord(topic, partition, message), handler, heartbeat));
        // Records of a partition are handled one after another, so this is all before it, too.
        this.committer.handled(topic, partition, message.offset);
      },
    });
  }

  /** One fetch's records of a partition at a time; the handler marks what it handled (RecordBatch). */
  async startBatches(handler: BatchHandler): Promise<void> {
    const consumer = {
      logger: this.logger,
      committer: this.committer,
      stopping: () => this.stopping,
      deadLetter: (topic: string, partition: number, message: BatchMessage, reason: string) => this.publishDeadLetter(toIncomingRecord(topic, partition, message), reason, true),
    };
    await this.run({ eachBatchAutoResolve: false, eachBatch: (payload) => this.committer.track(handler(new RecordBatch(payload, consumer))) });
  }

  /**
   * Reads without committing, each partition from where `positions` says, asked again on every
   * join of the group: a consumer kafkajs started again (a crash while a new broker's group
   * coordinator loads, a broker restart) goes on where the one before left off, and a seek made
   * only once would have been lost with the consumer that crashed before joining. Nothing is
   * retried, dead-lettered or counted. Resolves once running; `joined`, at the first join.
   */
  async startReader(handler: ReadHandler, positions: ReaderPositions): Promise<{ joined: Promise<void> }> {
    let joined: () => void = () => undefined;
    const first = new Promise<void>((resolve) => (joined = resolve));
    const onJoin = (consumer: Consumer) => {
      for (const topic of this.options.topics) for (const [partition, offset] of positions(topic)) consumer.seek({ topic: this.connection.topic(topic), partition, offset });
      joined();
    };
    await this.run({ eachMessage: async ({ topic, partition, message }) => handler(toIncomingRecord(topic, partition, message)) }, onJoin);
    return { joined: first };
  }

  /** `reader`: run as a reader (startReader), told of each join; otherwise committing, from the beginning for a new group. */
  private async run(mode: Pick<ConsumerRunConfig, 'eachMessage' | 'eachBatch' | 'eachBatchAutoResolve'>, reader?: (consumer: Consumer) => void): Promise<void> {
    // Dead letters count from 0, so that the first one is an increase Prometheus can see.
    if (!reader) for (const topic of this.options.topics) consumerDeadLetters.inc({ group: this.options.groupId, topic }, 0);
    const consumer = this.connection.kafka.consumer({
      groupId: this.connection.group(this.options.groupId),
      ...CONSUMER_SETTINGS,
      ...(this.options.maxBytesPerPartition === undefined ? {} : { maxBytesPerPartition: this.options.maxBytesPerPartition }),
      allowAutoTopicCreation: false,
    });
    const { onCrash } = this.options;
    if (onCrash) consumer.on(consumer.events.CRASH, ({ payload }) => onCrash(payload.error));
    if (reader) consumer.on(consumer.events.GROUP_JOIN, () => reader(consumer));
    const runConfig: ConsumerRunConfig = { autoCommit: false, partitionsConsumedConcurrently: this.options.partitionsConsumedConcurrently ?? 3, ...mode };
    // Before the first run: its first join can already crash in a way kafkajs does not restart from.
    const restarter = new CrashRestarter(consumer, runConfig, this.logger, this.options.groupId);
    try {
      await startConsumer(
        consumer,
        this.committer,
        this.options.topics.map((topic) => this.connection.topic(topic)),
        runConfig,
        reader ? { committed: false } : {},
      );
    } catch (error) {
      restarter.stop();
      throw error;
    }
    this.consumer = consumer;
    this.restarter = restarter;
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.restarter?.stop();
    const consumer = this.consumer;
    this.consumer = undefined;
    if (!consumer) return;
    // No new records; the ones being handled finish and are committed before the group is left
    // (kafkajs would leave without committing them, and their next owner would handle them again).
    await this.committer.stop(
      consumer,
      this.options.topics.map((topic) => this.connection.topic(topic)),
    );
    await consumer.disconnect();
  }

  private async handleWithRetries(record: IncomingRecord, handler: RecordHandler, heartbeat: () => Promise<void>): Promise<void> {
    const maxAttempts = this.options.maxAttempts ?? 8;
    let lastError: unknown;
    let permanent = false;
    const started = Date.now();
    const type = typeLabel(record.headers[MessageHeader.MessageType]);
    const ended = (outcome: HandlingOutcome) => recordHandlingSeconds.observe({ group: this.options.groupId, type, outcome }, (Date.now() - started) / 1000);
    for (let attempt = 1; attempt <= maxAttempts; attempt++) {
      try {
        await handler(record);
        ended('ok');
        return;
      } catch (error) {
        lastError = error;
        recordHandlingFailures.inc({ group: this.options.groupId, type });
        if (error instanceof PermanentMessageError || this.options.isPermanent?.(error)) {
          permanent = true;
          break;
        }
        if (this.stopping) {
          ended('abandoned');
          throw error; // not committed: the next owner of the partition gets it again
        }
        if (await this.answeredUnavailable(record, error, started)) {
          ended('unavailable');
          return;
        }
        const delay = Math.min(100 * 2 ** (attempt - 1), 5000);
        this.logger.warn({ err: error, topic: record.topic, offset: record.offset, attempt, delay }, 'record failed; retrying');
        await sleep(delay);
        await heartbeat();
      }
    }
    await this.deadLetter(record, lastError, permanent);
    ended('dead_lettered');
  }

  private async answeredUnavailable(record: IncomingRecord, error: unknown, started: number): Promise<boolean> {
    const { unavailableAfterMs, answerUnavailable } = this.options;
    if (unavailableAfterMs === undefined || !answerUnavailable || Date.now() - started < unavailableAfterMs) return false;
    const reason = reasonOf(error);
    // Answering needs the broker too; if that fails, the record is retried as before.
    const answered = await answerUnavailable(record, reason).catch(() => false);
    if (answered) this.logger.warn({ topic: record.topic, offset: record.offset, reason }, 'record not handled: a dependency is unavailable; its sender was answered 503');
    return answered;
  }

  private async deadLetter(record: IncomingRecord, error: unknown, permanent: boolean): Promise<void> {
    if (!this.options.deadLetterTopic) throw error; // nowhere to put it: keep retrying through kafkajs
    await this.publishDeadLetter(record, reasonOf(error), permanent);
  }

  private async publishDeadLetter(record: IncomingRecord, reason: string, permanent: boolean): Promise<void> {
    if (!this.options.deadLetterTopic) throw new Error(`no dead-letter topic for the records of ${this.options.groupId}: ${reason}`);
    await this.producer.sendRaw(this.connection.topic(this.options.deadLetterTopic), [
      {
        key: record.key ?? '',
        value: record.value,
        headers: {
          ...record.headers,
          [MessageHeader.DeadLetterReason]: reason.slice(0, 1000),
          [MessageHeader.DeadLetterSourceTopic]: record.topic,
        },
      },
    ]);
    consumerDeadLetters.inc({ group: this.options.groupId, topic: unprefixedTopic(record.topic, this.connection.settings.prefix) });
    this.logger.error({ topic: record.topic, offset: record.offset, reason }, 'record dead-lettered');
    await this.options.onDeadLetter?.(record, reason, permanent);
  }
}

function reasonOf(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
