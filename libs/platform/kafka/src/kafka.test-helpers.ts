import { randomUUID } from 'node:crypto';
import type { Consumer } from 'kafkajs';
import type { KafkaConnection } from './kafka-connection';
import { toIncomingRecord, type IncomingRecord } from './kafka-record';

/** Reads topics from their beginning in a consumer group of its own and keeps every record. */
export class TopicRecorder {
  readonly records: IncomingRecord[] = [];
  private consumer: Consumer | undefined;

  constructor(
    private readonly connection: KafkaConnection,
    private readonly topics: readonly string[],
  ) {}

  async start(): Promise<this> {
    const consumer = this.connection.kafka.consumer({
      groupId: this.connection.group(`recorder-${randomUUID()}`),
      sessionTimeout: 10_000,
      heartbeatInterval: 1000,
      maxWaitTimeInMs: 50,
    });
    this.consumer = consumer;
    await consumer.connect();
    for (const topic of this.topics) await consumer.subscribe({ topic: this.connection.topic(topic), fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ topic, partition, message }) => {
        this.records.push(toIncomingRecord(topic, partition, message));
      },
    });
    return this;
  }

  /** Records of one (unprefixed) topic, in the order they were read. */
  of(topic: string): IncomingRecord[] {
    const name = this.connection.topic(topic);
    return this.records.filter((r) => r.topic === name);
  }

  async stop(): Promise<void> {
    await this.consumer?.disconnect();
  }
}

export function jsonOf<T = Record<string, unknown>>(record: IncomingRecord): T {
  return JSON.parse(record.value?.toString() ?? 'null') as T;
}

/** Removes the topics and consumer groups a test file created under its prefix. */
export async function deleteTopicsAndGroups(connection: KafkaConnection): Promise<void> {
  const admin = connection.kafka.admin();
  await admin.connect();
  try {
    const prefix = connection.topic('');
    const groups = (await admin.listGroups()).groups.map((g) => g.groupId).filter((g) => g.startsWith(prefix));
    if (groups.length > 0) await admin.deleteGroups(groups).catch(() => undefined);
    const topics = (await admin.listTopics()).filter((t) => t.startsWith(prefix));
    if (topics.length > 0) await admin.deleteTopics({ topics });
  } finally {
    await admin.disconnect();
  }
}
