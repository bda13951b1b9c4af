import { randomUUID } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import { kafkaClientOptions } from '@seed/platform-config';

export interface ConsumedRecord {
  key: string | null;
  headers: Record<string, string>;
  value: Record<string, unknown>;
}

/**
 * Reads `topic` from the beginning with a group of its own until `done` holds for what was read
 * (or the time is up), then disconnects.
 */
export async function consumeUntil(
  topic: string,
  done: (records: readonly ConsumedRecord[]) => boolean,
  timeoutMs = 30_000,
): Promise<ConsumedRecord[]> {
  const { brokers, security } = kafkaClientOptions();
  const kafka = new Kafka({ clientId: 'platform-e2e', brokers, ...security, logLevel: logLevel.NOTHING });
  const consumer = kafka.consumer({ groupId: `e2e-reader-${randomUUID()}` });
  const records: ConsumedRecord[] = [];
  try {
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${topic}: condition not met within ${timeoutMs} ms (${records.length} records read)`)), timeoutMs);
      consumer
        .run({
          eachMessage: async ({ message }) => {
            const headers: Record<string, string> = {};
            for (const [name, value] of Object.entries(message.headers ?? {})) {
              const first = Array.isArray(value) ? value[0] : value;
              if (first !== undefined) headers[name] = first.toString();
            }
            records.push({
              key: message.key ? message.key.toString() : null,
              headers,
              value: JSON.parse(message.value?.toString() ?? 'null') as Record<string, unknown>,
            });
            if (done(records)) {
              clearTimeout(timer);
              resolve();
            }
          },
        })
        .catch((error: unknown) => {
          clearTimeout(timer);
          reject(error instanceof Error ? error : new Error(String(error)));
        });
    });
    return records;
  } finally {
    await consumer.disconnect();
  }
}
