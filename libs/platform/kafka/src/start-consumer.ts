import type { Consumer, ConsumerRunConfig } from 'kafkajs';
import { consumerGroups } from './consumer-groups';
import type { IntervalOffsetCommitter } from './interval-offset-committer';

/**
 * Connects, subscribes (from the beginning for a new group: records published before its first
 * start are not lost) and runs a consumer whose offsets `committer` commits. A start that fails
 * (a broker still starting) leaves nothing behind, so that the service's start can try again.
 * `committed: false`: a reader that commits nothing and seeks where it reads (ResilientConsumer's
 * startReader): subscribed at the end, no commits, no lag on /metrics (it has no committed offsets).
 */
export async function startConsumer(
  consumer: Consumer,
  committer: IntervalOffsetCommitter,
  topics: readonly string[],
  run: ConsumerRunConfig,
  { committed = true }: { committed?: boolean } = {},
): Promise<void> {
  try {
    await consumer.connect();
    for (const topic of topics) await consumer.subscribe({ topic, fromBeginning: committed });
    if (committed) committer.start(consumer);
    await consumer.run(run);
    // Its lag is read for /metrics until the committer stops.
    if (committed) consumerGroups.started(committer, { groupId: committer.groupId, topics });
  } catch (error) {
    committer.abandon();
    await consumer.disconnect().catch(() => undefined);
    throw error;
  }
}
