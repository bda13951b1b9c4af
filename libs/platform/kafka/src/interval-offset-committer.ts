import type { Consumer } from 'kafkajs';
import type { Logger } from 'pino';
import { consumerGroups } from './consumer-groups';

interface NextOffset {
  topic: string;
  partition: number;
  offset: string;
}

const partitionKey = (next: Omit<NextOffset, 'offset'>): string => `${next.topic}:${next.partition}`;

/**
 * Commits a consumer's handled offsets on a timer and on stop, for consumers run with
 * `autoCommit: false`. kafkajs otherwise commits after every fetch (every batch with `eachBatch`):
 * at a few records per fetch that is an OffsetCommit round trip, and a write to the broker's
 * offsets log, for nearly every record. A crash or a rebalance redelivers up to one interval of
 * handled records, which consumers using this must absorb (idempotent by message or event id).
 *
 * Records of one partition must be marked handled in order: the offset kept is the last one marked.
 */
export class IntervalOffsetCommitter {
  /** Per topic-partition, the offset after the last record handled and not yet committed. */
  private readonly toCommit = new Map<string, NextOffset>();
  private readonly handling = new Set<Promise<unknown>>();
  private committing: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly logger: Logger,
    /** The consumer group, before KAFKA_TOPIC_PREFIX. */
    readonly groupId: string,
    private readonly intervalMs = 1000,
  ) {}

  /** Call before `consumer.run`. */
  start(consumer: Consumer): void {
    // After a rebalance, offsets of partitions now owned elsewhere are no longer ours to commit.
    consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
      const assigned = payload.memberAssignment;
      for (const [key, next] of this.toCommit) if (!assigned[next.topic]?.includes(next.partition)) this.toCommit.delete(key);
    });
    this.timer = setInterval(() => void this.commit(consumer), this.intervalMs);
    this.timer.unref();
  }

  /** The consumer never got going (its start failed): stop the timer, commit nothing. */
  abandon(): void {
    consumerGroups.stopped(this);
    clearInterval(this.timer);
    this.toCommit.clear();
  }

  /** Work whose records are marked once it is done: `stop` waits for it. */
  async track<T>(work: Promise<T>): Promise<T> {
    this.handling.add(work);
    try {
      return await work;
    } finally {
      this.handling.delete(work);
    }
  }

  /** The record at `offset` and all before it in its partition are handled. */
  handled(topic: string, partition: number, offset: string): void {
    this.toCommit.set(partitionKey({ topic, partition }), { topic, partition, offset: (BigInt(offset) + 1n).toString() });
  }

  /**
   * Pauses the topics, waits for the tracked work and commits what it handled, so the next owner of
   * the partitions starts after it. The caller disconnects the consumer afterwards.
   */
  async stop(consumer: Consumer, topics: readonly string[]): Promise<void> {
    consumerGroups.stopped(this);
    clearInterval(this.timer);
    try {
      consumer.pause(topics.map((topic) => ({ topic })));
      await Promise.allSettled([...this.handling]);
      await this.commit(consumer);
    } catch (error) {
      // Not running (it crashed, or never started): there is nothing to hand over.
      this.logger.warn({ err: error, groupId: this.groupId }, 'consumer stopped without a final commit');
    }
  }

  /** Commits what was handled since the last commit; a failed commit is tried again next time. */
  private commit(consumer: Consumer): Promise<void> {
    this.committing = this.committing.then(async () => {
      const offsets = [...this.toCommit.values()];
      if (offsets.length === 0) return;
      try {
        await consumer.commitOffsets(offsets);
        for (const done of offsets) if (this.toCommit.get(partitionKey(done)) === done) this.toCommit.delete(partitionKey(done));
      } catch (error) {
        // A rebalance took the partition (its new owner redelivers) or the broker is away.
        this.logger.warn({ err: error, groupId: this.groupId }, 'offsets not committed; retrying');
      }
    });
    return this.committing;
  }
}
