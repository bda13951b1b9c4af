import type { KafkaConnection } from './kafka-connection';

export interface TopicSpec {
  name: string;
  partitions: number;
  /** Milliseconds; -1 keeps records forever (event topics are the public log). */
  retentionMs: number;
  maxMessageBytes?: number;
}

const MiB = 1024 * 1024;

export const eventTopic = (name: string): TopicSpec => ({ name, partitions: 3, retentionMs: -1, maxMessageBytes: 8 * MiB });
export const commandTopic = (name: string): TopicSpec => ({
  name,
  partitions: 3,
  retentionMs: 7 * 24 * 3600_000,
  maxMessageBytes: 32 * MiB,
});
export const deadLetterTopic = (name: string): TopicSpec => ({
  name: `${name}.dlq`,
  partitions: 1,
  retentionMs: 30 * 24 * 3600_000,
  maxMessageBytes: 32 * MiB,
});
export const replyTopic = (name: string): TopicSpec => ({ name, partitions: 3, retentionMs: 3600_000, maxMessageBytes: 32 * MiB });

/**
 * Creates topics up front with explicit partition counts: relying on auto-creation gives
 * "no leader for this topic-partition" at start-up. Existing topics are left as they are.
 */
export async function ensureTopics(connection: KafkaConnection, specs: readonly TopicSpec[]): Promise<void> {
  const admin = connection.kafka.admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    const missing = dedupe(specs).filter((spec) => !existing.has(connection.topic(spec.name)));
    if (missing.length === 0) return;
    await admin.createTopics({
      waitForLeaders: true,
      topics: missing.map((spec) => ({
        topic: connection.topic(spec.name),
        numPartitions: spec.partitions,
        replicationFactor: connection.settings.replicationFactor ?? 1,
        configEntries: [
          { name: 'retention.ms', value: String(spec.retentionMs) },
          { name: 'max.message.bytes', value: String(spec.maxMessageBytes ?? MiB) },
        ],
      })),
    });
  } finally {
    await admin.disconnect();
  }
}

function dedupe(specs: readonly TopicSpec[]): TopicSpec[] {
  return [...new Map(specs.map((s) => [s.name, s])).values()];
}
