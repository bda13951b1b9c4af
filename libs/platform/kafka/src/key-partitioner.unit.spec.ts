import { randomBytes, randomUUID } from 'node:crypto';
// kafkajs's own implementation, the reference the platform's partitioning must match.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const kafkajsMurmur2 = require('kafkajs/src/producer/partitioners/default/murmur2') as (key: Buffer | string) => number;
import { keyPartitioner, murmur2 } from './key-partitioner';

const partitions = (n: number) => Array.from({ length: n }, (_, i) => ({ partitionErrorCode: 0, partitionId: i, leader: 0, replicas: [0], isr: [0] }));

describe('keyPartitioner', () => {
  it('hashes keys exactly as kafkajs and the Java client do (murmur2)', () => {
    const keys: (string | Buffer)[] = ['', 'a', 'ab', 'abc', 'abcd', 'sms-message-0190a0a0-0000-7000-8000-000000000001', 'ü€😀'];
    for (let i = 0; i < 2000; i++) keys.push(randomUUID(), randomBytes(i % 67));
    for (const key of keys) expect(murmur2(key)).toBe(kafkajsMurmur2(key));
    // Known values of Kafka's Utils.murmur2 (from the Java client's tests, via kafkajs's).
    expect(murmur2('21')).toBe(-973932308);
    expect(murmur2('foobar')).toBe(-790332482);
  });

  it('sends a key to the partition the default partitioner picks, and unkeyed records round robin over partitions with a leader', () => {
    const pick = keyPartitioner();
    const metadata = partitions(12);
    for (const key of ['sms-message-1', 'verification-abc', randomUUID()]) {
      expect(pick({ topic: 't', partitionMetadata: metadata, message: { key, value: 'v' } })).toBe((kafkajsMurmur2(key) & 0x7fffffff) % 12);
    }
    expect(pick({ topic: 't', partitionMetadata: metadata, message: { key: 'k', value: 'v', partition: 5 } })).toBe(5);
    const leaderless = metadata.map((p) => (p.partitionId % 2 === 0 ? p : { ...p, leader: -1 }));
    const spread = new Set(Array.from({ length: 60 }, () => pick({ topic: 't', partitionMetadata: leaderless, message: { value: 'v' } })));
    expect([...spread].sort((a, b) => a - b)).toEqual([0, 2, 4, 6, 8, 10]);
  });
});
