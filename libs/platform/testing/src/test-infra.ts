import { DataSource } from 'typeorm';
import pino, { type Logger } from 'pino';
import { PreparedStatementClient } from '@seed/platform-event-store';
import { kafkaClientOptions } from '@seed/platform-config';
import { KafkaConnection, parseBrokers } from '@seed/platform-kafka';

export function requireEnv(name: 'DATABASE_URL' | 'KAFKA_BROKERS'): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run \`bash tools/infra/infra.sh up\` first (npm test does)`);
  return value;
}

/** With the services' client (prepared statements), so that tests run the SQL as the services do. */
export async function openTestDataSource(poolSize = 5): Promise<DataSource> {
  const dataSource = new DataSource({ type: 'postgres', url: requireEnv('DATABASE_URL'), extra: { max: poolSize, Client: PreparedStatementClient } });
  return dataSource.initialize();
}

export async function dropSchema(dataSource: DataSource, schema: string): Promise<void> {
  await dataSource.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
}

/** Quiet by default; TEST_LOG_LEVEL=debug shows what the code under test logs. */
export function testLogger(): Logger {
  return pino({ level: process.env['TEST_LOG_LEVEL'] ?? 'silent' });
}

export function testKafka(prefix: string, clientId = 'test'): KafkaConnection {
  const { security } = kafkaClientOptions({ ...process.env, KAFKA_BROKERS: requireEnv('KAFKA_BROKERS') });
  return new KafkaConnection({ brokers: parseBrokers(requireEnv('KAFKA_BROKERS')), clientId, prefix: `${prefix}.`, security }, testLogger());
}

/** Polls until `check` returns a value (not undefined) or the time is up. */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 15_000, intervalMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (error) {
      lastError = error;
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  throw new Error(`condition not met within ${timeoutMs} ms${lastError ? `: ${String(lastError)}` : ''}`);
}
