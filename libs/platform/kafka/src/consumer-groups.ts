/** A consumer group this process consumes with, and the (prefixed) topics it reads. */
export interface RunningConsumerGroup {
  /** The group's name before KAFKA_TOPIC_PREFIX, as the service names it. */
  groupId: string;
  topics: readonly string[];
}

const running = new Map<object, RunningConsumerGroup>();

/**
 * The consumer groups running in this process, so that their lag can be read for /metrics without
 * each consumer announcing itself: `startConsumer` adds one, its committer's stop removes it.
 */
export const consumerGroups = {
  started(owner: object, group: RunningConsumerGroup): void {
    running.set(owner, group);
  },
  stopped(owner: object): void {
    running.delete(owner);
  },
  /** One entry per group (replicas of a consumer in one process read the same lag). */
  list(): RunningConsumerGroup[] {
    const byGroup = new Map<string, RunningConsumerGroup>();
    for (const group of running.values()) byGroup.set(group.groupId, group);
    return [...byGroup.values()];
  },
};
