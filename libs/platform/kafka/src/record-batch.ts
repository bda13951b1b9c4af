import type { EachBatchPayload, KafkaMessage } from 'kafkajs';
import type { Logger } from 'pino';
import type { IntervalOffsetCommitter } from './interval-offset-committer';

/** A record as a batch handler sees it: kafkajs's message, headers and value undecoded. */
export type BatchMessage = KafkaMessage;

/** Handles one fetch's records of one partition (ResilientConsumer.startBatches). */
export type BatchHandler = (batch: RecordBatch) => Promise<void>;

/** What a batch needs of the consumer that runs it. */
export interface BatchConsumer {
  logger: Logger;
  committer: IntervalOffsetCommitter;
  /** True once the consumer is stopping: what is not handled yet is left to the partition's next owner. */
  stopping(): boolean;
  /** Publishes one record to the dead-letter topic, with the reason. */
  deadLetter(topic: string, partition: number, message: BatchMessage, reason: string): Promise<void>;
}

const HEARTBEAT_MS = 1000;

/**
 * One fetch's records of one partition, for a handler that works through them in chunks (one
 * transaction each, say). The handler marks what it handled, in order (`handled`): those offsets
 * are committed with the consumer's next interval, never before. A failure is retried for as long as
 * it lasts (`retrying`: the partition waits, nothing is skipped) and a record that can never be
 * handled is dead-lettered (`deadLetter`), never dropped.
 */
export class RecordBatch {
  readonly topic: string;
  readonly partition: number;
  readonly messages: readonly BatchMessage[];

  constructor(
    private readonly payload: EachBatchPayload,
    private readonly consumer: BatchConsumer,
  ) {
    this.topic = payload.batch.topic;
    this.partition = payload.batch.partition;
    this.messages = payload.batch.messages;
  }

  /** Whether to go on: false once the consumer stops or the partition went to another member. */
  active(): boolean {
    return this.payload.isRunning() && !this.payload.isStale();
  }

  heartbeat(): Promise<void> {
    return this.payload.heartbeat();
  }

  /** The record at `offset` and every one before it in this batch are handled: committed with the next interval. */
  handled(offset: string): void {
    this.payload.resolveOffset(offset);
    this.consumer.committer.handled(this.topic, this.partition, offset);
  }

  /**
   * The batch's records in chunks of `size`, in order, each handed to `handle` and then marked
   * handled (its last offset), with a heartbeat after each. Stops before a chunk once the consumer
   * stops or the partition went elsewhere: what is left is the next owner's.
   */
  async eachChunk(size: number, handle: (chunk: readonly BatchMessage[]) => Promise<void>): Promise<void> {
    for (let i = 0; i < this.messages.length; i += size) {
      if (!this.active()) return;
      const chunk = this.messages.slice(i, i + size);
      await handle(chunk);
      const last = chunk[chunk.length - 1];
      if (last) this.handled(last.offset);
      await this.heartbeat();
    }
  }

  /** Waits for `work`, with a heartbeat every second meanwhile (kafkajs sends none on its own while a batch is handled). */
  async whileBeating<T>(work: Promise<T>): Promise<T> {
    const timer = setInterval(() => void this.heartbeat().catch(() => undefined), HEARTBEAT_MS);
    try {
      return await work;
    } finally {
      clearInterval(timer);
    }
  }

  /**
   * `work`, tried again with backoff (up to 5 s apart) for as long as it fails; `failure` is logged
   * with each failure. Once the consumer is stopping, the failure is thrown: the records are not
   * committed, and the partition's next owner handles them.
   */
  async retrying<T>(work: () => Promise<T>, failure: string): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await work();
      } catch (error) {
        if (this.consumer.stopping()) throw error;
        const delay = Math.min(100 * 2 ** (attempt - 1), 5000);
        this.consumer.logger.warn({ err: error, attempt, delay }, `${failure}; retrying`);
        await new Promise((r) => setTimeout(r, delay));
        await this.heartbeat().catch(() => undefined);
      }
    }
  }

  /** Puts one record of the batch on the dead-letter topic with `reason`. */
  deadLetter(message: BatchMessage, reason: string): Promise<void> {
    return this.consumer.deadLetter(this.topic, this.partition, message, reason);
  }
}
