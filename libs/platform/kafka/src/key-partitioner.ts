import type { ICustomPartitioner } from 'kafkajs';

/**
 * Kafka's default partitioning, as the Java client and kafkajs's DefaultPartitioner do it: a keyed
 * record goes to murmur2(key) mod partitions, so each stream's events stay on one partition and
 * any Kafka client computes the same one; a record without a key goes round robin over the
 * partitions that have a leader.
 *
 * Why not kafkajs's own: it computes the 32-bit hash with 64-bit `Long` objects (several
 * allocations per byte group) and filters the partition list for every record, on the relay's hot
 * path (docs/adr/0037-kafka-client-hot-paths.md). This is the same arithmetic with Math.imul,
 * tested against kafkajs's function.
 */
export const keyPartitioner: ICustomPartitioner = () => {
  let counter = Math.floor(Math.random() * 0x7fffffff);
  return ({ partitionMetadata, message }) => {
    if (message.partition !== null && message.partition !== undefined) return message.partition;
    if (message.key !== null && message.key !== undefined) return toPositive(murmur2(message.key)) % partitionMetadata.length;
    const available = partitionMetadata.filter((p) => p.leader >= 0);
    const from = available.length > 0 ? available : partitionMetadata;
    counter = (counter + 1) & 0x7fffffff;
    return (from[counter % from.length] as { partitionId: number }).partitionId;
  };
};

const toPositive = (x: number): number => x & 0x7fffffff;

const SEED = 0x9747b28c;
const M = 0x5bd1e995;

/** Kafka's murmur2 (org.apache.kafka.common.utils.Utils.murmur2) of the key's bytes, as a signed 32-bit integer. */
export function murmur2(key: Buffer | string): number {
  const data = typeof key === 'string' ? Buffer.from(key) : key;
  const length = data.length;
  let h = (SEED ^ length) | 0;
  const length4 = length >>> 2;
  for (let i = 0; i < length4; i++) {
    const i4 = i * 4;
    let k = (data[i4] as number) | ((data[i4 + 1] as number) << 8) | ((data[i4 + 2] as number) << 16) | ((data[i4 + 3] as number) << 24);
    k = Math.imul(k, M);
    k ^= k >>> 24;
    k = Math.imul(k, M);
    h = Math.imul(h, M) ^ k;
  }
  // The last one to three bytes (Kafka's switch falls through from 3 to 1).
  const tail = length & ~3;
  const rest = length % 4;
  if (rest === 3) h ^= (data[tail + 2] as number) << 16;
  if (rest >= 2) h ^= (data[tail + 1] as number) << 8;
  if (rest >= 1) {
    h ^= data[tail] as number;
    h = Math.imul(h, M);
  }
  h ^= h >>> 13;
  h = Math.imul(h, M);
  h ^= h >>> 15;
  return h | 0;
}
