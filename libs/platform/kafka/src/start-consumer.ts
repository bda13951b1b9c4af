import type { Consumer, ConsumerRunConfig } from 'kafkajs';
import { consumerGroups } from './consumer-groups';
import type { IntervalOffsetCommitter } from './interval-offset-committer';

/**
 * Connects, subscribes (from the beginning for a new group: records published before its first
 * start are not lost) and runs a consumer whose offsets `committer` commits. A start that fails
 * (a broker still starting) leaves nothing behind, so that the service's start can try again.
 */
export async function startConsumer(consumer: Consumer, committer: IntervalOffsetCommitter, topics: readonly string[], run: ConsumerRunConfig): Promise<void> {
  try {
    await consumer.connect();
    for (const topic of topics) await consumer.subscribe({ topic, fromBeginning: true });
    committer.start(consumer);
    await consumer.run(run);
    // Its lag is read for /metrics until the committer stops.
    consumerGroups.started(committer, { groupId: committer.groupId, topics });
  } catch (error) {
    committer.abandon();
    await consumer.disconnect().catch(() => undefined);
    throw error;
  }
}
