import type { Admin } from 'kafkajs';
import { consumerGroups, unprefixedTopic, type KafkaConnection } from '@seed/platform-kafka';
import { SampledGauge, type Reading } from './sampled-gauge';
import { ScrapeSample } from './scrape-sample';

const lag = new SampledGauge({
  name: 'kafka_consumer_lag_messages',
  help: "Records of a topic its consumer group has not committed yet (the partitions' end offsets minus the group's committed offsets)",
  labelNames: ['group', 'topic'] as const,
});

/**
 * The lag of the consumer groups this process runs (`consumerGroups`), asked of the broker: the
 * group's committed offsets and the topics' end offsets, two requests per group. Read from the
 * broker rather than from fetched batches, so that a consumer that stopped fetching (stuck, crashed)
 * shows its lag growing instead of the last value it saw. Offsets are committed once a second, so
 * up to a second of handled records counts as lag. Every replica reports its groups' lag: take the
 * maximum over them.
 */
export class ConsumerLagReader {
  private admin: Promise<Admin> | undefined;

  constructor(private readonly connection: KafkaConnection) {}

  async read(): Promise<Reading<'group' | 'topic'>[]> {
    const groups = consumerGroups.list();
    if (groups.length === 0) return [];
    const admin = await this.connected();
    const ends = new Map<string, Promise<{ partition: number; high: string; low: string }[]>>();
    const readings: Reading<'group' | 'topic'>[] = [];
    try {
      for (const { groupId, topics } of groups) {
        const committed = await admin.fetchOffsets({ groupId: this.connection.group(groupId), topics: [...topics] });
        for (const { topic, partitions } of committed) {
          if (!ends.has(topic)) ends.set(topic, admin.fetchTopicOffsets(topic));
          const offsets = new Map(partitions.map((p) => [p.partition, Number(p.offset)]));
          let behind = 0;
          for (const end of (await ends.get(topic)) ?? []) {
            // No commit yet (-1): the group starts from the beginning of what the topic keeps.
            const from = offsets.get(end.partition) ?? -1;
            behind += Math.max(0, Number(end.high) - (from >= 0 ? from : Number(end.low)));
          }
          readings.push({ labels: { group: groupId, topic: unprefixedTopic(topic, this.connection.settings.prefix) }, value: behind });
        }
      }
    } catch (error) {
      // A broken connection is made anew at the next reading.
      await this.close();
      throw error;
    }
    return readings;
  }

  async close(): Promise<void> {
    const admin = this.admin;
    this.admin = undefined;
    await (await admin?.catch(() => undefined))?.disconnect().catch(() => undefined);
  }

  private connected(): Promise<Admin> {
    if (!this.admin) {
      // No retries: a reading that fails is simply missing from this scrape.
      const admin = this.connection.kafka.admin({ retry: { retries: 0 } });
      this.admin = admin.connect().then(() => admin);
      this.admin.catch(() => (this.admin = undefined));
    }
    return this.admin;
  }
}

/** Attaches the consumer-lag gauge to this process's consumer groups; the function returned detaches it. */
export function attachConsumerLag(reader: ConsumerLagReader, onError?: (error: unknown) => void): () => void {
  // A broker round trip per group and topic: not more than once in 10 s.
  const sample = new ScrapeSample(() => reader.read(), { maxAgeMs: 10_000, timeoutMs: 3000, onError });
  return lag.attach(() => sample.current());
}
