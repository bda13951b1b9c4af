import { loadConfig, PlatformConfig } from '@seed/platform-config';
import { PreparedStatementClient } from '@seed/platform-event-store';
import { databasePoolOptions } from './platform.module';

const base = { DATABASE_URL: 'postgres://seed@127.0.0.1:5432/seed', KAFKA_BROKERS: '127.0.0.1:9092', DATABASE_POOL_SIZE: '7' };

describe('databasePoolOptions', () => {
  it('uses prepared statements by default, and keeps idle connections for ten minutes', () => {
    expect(databasePoolOptions(loadConfig(PlatformConfig, base))).toEqual({ max: 7, idleTimeoutMillis: 600_000, Client: PreparedStatementClient });
  });

  it('leaves node-postgres its own client when DATABASE_PREPARED_STATEMENTS=false (a pooler that cannot keep them)', () => {
    const options = databasePoolOptions(loadConfig(PlatformConfig, { ...base, DATABASE_PREPARED_STATEMENTS: 'false' }));
    expect(options).toEqual({ max: 7, idleTimeoutMillis: 600_000 });
  });

  it('passes DATABASE_POOL_IDLE_MS on (0: idle connections are never closed)', () => {
    expect(databasePoolOptions(loadConfig(PlatformConfig, { ...base, DATABASE_POOL_IDLE_MS: '30000' })).idleTimeoutMillis).toBe(30_000);
    expect(databasePoolOptions(loadConfig(PlatformConfig, { ...base, DATABASE_POOL_IDLE_MS: '0' })).idleTimeoutMillis).toBe(0);
  });
});
