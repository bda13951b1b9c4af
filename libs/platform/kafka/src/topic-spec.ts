import type { Admin } from 'kafkajs';
import type { KafkaConnection } from './kafka-connection';

export interface TopicSpec {
  name: string;
  partitions: number;
  /** Read in a shared consumer group: created with KAFKA_TOPIC_PARTITIONS partitions when that is set. */
  shared?: boolean;
  /** Milliseconds; -1 keeps records forever (event topics are the public log). */
  retentionMs: number;
  maxMessageBytes?: number;
}

const MiB = 1024 * 1024;

/**
 * Partitions of the topics read in a shared consumer group, unless KAFKA_TOPIC_PARTITIONS says
 * otherwise: a group gives each partition to one replica, so this is the most replicas that share a
 * topic's records. At least the largest replica count the Kubernetes autoscalers allow (8,
 * k8s/README.md); raising it later moves keys.
 */
export const SHARED_TOPIC_PARTITIONS = 12;

export const eventTopic = (name: string): TopicSpec => ({ name, partitions: SHARED_TOPIC_PARTITIONS, shared: true, retentionMs: -1, maxMessageBytes: 8 * MiB });
export const commandTopic = (name: string): TopicSpec => ({
  name,
  partitions: SHARED_TOPIC_PARTITIONS,
  shared: true,
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
 * Leaders are awaited by polling metadata rather than with kafkajs's `waitForLeaders`, which gives
 * up on the UNKNOWN_TOPIC_OR_PARTITION a Kafka 4 broker briefly reports for a topic just created.
 */
export async function ensureTopics(connection: KafkaConnection, specs: readonly TopicSpec[], timeoutMs = 30_000): Promise<void> {
  const admin = connection.kafka.admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    const missing = dedupe(specs).filter((spec) => !existing.has(connection.topic(spec.name)));
    if (missing.length > 0) {
      await withTopicErrors(admin.createTopics({
        waitForLeaders: false,
        topics: missing.map((spec) => ({
          topic: connection.topic(spec.name),
          numPartitions: (spec.shared && connection.settings.sharedPartitions) || spec.partitions,
          replicationFactor: connection.settings.replicationFactor ?? 1,
          configEntries: [
            { name: 'retention.ms', value: String(spec.retentionMs) },
            { name: 'max.message.bytes', value: String(spec.maxMessageBytes ?? MiB) },
          ],
        })),
      }));
    }
    await waitForLeaders(admin, dedupe(specs).map((spec) => connection.topic(spec.name)), timeoutMs);
  } finally {
    await admin.disconnect();
  }
}

/**
 * kafkajs reports a refused creation as "Topic creation errors", its causes in `errors`: the
 * topics and reasons (TOPIC_AUTHORIZATION_FAILED for a principal without the right, or a topic that
 * exists but is not its to see) are what an operator needs in the log.
 */
async function withTopicErrors<T>(creating: Promise<T>): Promise<T> {
  try {
    return await creating;
  } catch (error) {
    const causes = (error as { errors?: unknown }).errors;
    if (!Array.isArray(causes) || causes.length === 0) throw error;
    const reasons = causes.map((cause: { topic?: string; type?: string; message?: string }) => `${cause.topic ?? '?'}: ${cause.type ?? cause.message ?? String(cause)}`);
    throw new Error(`topics not created (${reasons.join('; ')})`, { cause: error });
  }
}

async function waitForLeaders(admin: Admin, topics: string[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const { topics: metadata } = await admin.fetchTopicMetadata({ topics });
      const ready = metadata.every((t) => t.partitions.length > 0 && t.partitions.every((p) => p.leader >= 0));
      if (ready && metadata.length === topics.length) return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
    }
    if (Date.now() > deadline) throw new Error(`topics have no leader after ${timeoutMs} ms: ${topics.join(', ')}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

function dedupe(specs: readonly TopicSpec[]): TopicSpec[] {
  return [...new Map(specs.map((s) => [s.name, s])).values()];
}
