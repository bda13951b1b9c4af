import { IsBoolean, IsInt, IsNumber, Max, Min } from 'class-validator';
import { ConfigError, loadConfig } from './load-config';
import { PlatformConfig } from './platform.config';

const VALID = { DATABASE_URL: 'postgres://seed@127.0.0.1:5432/seed', KAFKA_BROKERS: '127.0.0.1:9092' };

/** A service's own settings, as apps declare them: the default's type says what the setting is. */
class ServiceConfig extends PlatformConfig {
  @IsInt()
  @Min(1)
  @Max(100)
  WORKERS = 4;

  @IsNumber()
  RATIO = 0.5;

  @IsBoolean()
  ENABLED = false;
}

function problemsOf(work: () => unknown): string {
  try {
    work();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).message;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('returns an instance of the schema with every default when the environment sets only what is required', () => {
    const config = loadConfig(PlatformConfig, { ...VALID });

    expect(config).toBeInstanceOf(PlatformConfig);
    expect(config).toEqual({
      DATABASE_URL: VALID.DATABASE_URL,
      KAFKA_BROKERS: VALID.KAFKA_BROKERS,
      KAFKA_TOPIC_PREFIX: '',
      KAFKA_SSL: false,
      KAFKA_SSL_CA: '',
      KAFKA_SASL_MECHANISM: '',
      KAFKA_SASL_USERNAME: '',
      KAFKA_SASL_PASSWORD: '',
      REQUIRE_SECURE_CONNECTIONS: false,
      DATABASE_SCHEMA_PREFIX: '',
      LOG_LEVEL: 'info',
      DATABASE_POOL_SIZE: 10,
      DATABASE_POOL_IDLE_MS: 600_000,
      DATABASE_PREPARED_STATEMENTS: true,
      HEALTH_PORT: 0,
      KAFKA_REPLICATION_FACTOR: 1,
      KAFKA_TOPIC_PARTITIONS: 12,
      START_TIMEOUT_MS: 120_000,
    });
  });

  it('keeps the defaults an app overrides in its subclass', () => {
    class AppConfig extends PlatformConfig {
      override HEALTH_PORT = 3110;
    }
    expect(loadConfig(AppConfig, { ...VALID }).HEALTH_PORT).toBe(3110);
  });

  it('treats an empty variable as unset, so the default applies', () => {
    const config = loadConfig(PlatformConfig, { ...VALID, LOG_LEVEL: '', DATABASE_POOL_SIZE: '' });
    expect(config).toMatchObject({ LOG_LEVEL: 'info', DATABASE_POOL_SIZE: 10 });
  });

  it('coerces numeric strings to numbers where the default is a number, and leaves strings as strings', () => {
    const config = loadConfig(ServiceConfig, {
      ...VALID,
      DATABASE_POOL_SIZE: '25',
      HEALTH_PORT: ' 8080 ',
      KAFKA_REPLICATION_FACTOR: '3',
      WORKERS: '7',
      RATIO: '0.75',
      KAFKA_TOPIC_PREFIX: '123',
    });

    expect(config).toMatchObject({ DATABASE_POOL_SIZE: 25, HEALTH_PORT: 8080, KAFKA_REPLICATION_FACTOR: 3, WORKERS: 7, RATIO: 0.75 });
    // A string setting stays a string even when it looks like a number.
    expect(config.KAFKA_TOPIC_PREFIX).toBe('123');
  });

  it('coerces exactly "true" and "false" where the default is a boolean', () => {
    expect(loadConfig(ServiceConfig, { ...VALID, ENABLED: 'true' }).ENABLED).toBe(true);
    expect(loadConfig(ServiceConfig, { ...VALID, ENABLED: 'false' }).ENABLED).toBe(false);
    expect(problemsOf(() => loadConfig(ServiceConfig, { ...VALID, ENABLED: 'yes' }))).toMatch(/ENABLED: .*boolean/);
  });

  it.each([
    ['not a number at all', 'ten'],
    ['a hexadecimal literal', '0x10'],
    ['a number with a unit', '10ms'],
    ['a fraction where an integer is needed', '2.5'],
  ])('refuses %s for an integer setting', (_, raw) => {
    expect(problemsOf(() => loadConfig(PlatformConfig, { ...VALID, DATABASE_POOL_SIZE: raw }))).toMatch(/DATABASE_POOL_SIZE: .*integer/);
  });

  it('refuses a schema prefix Postgres would refuse at start-up', () => {
    expect(problemsOf(() => loadConfig(PlatformConfig, { ...VALID, DATABASE_SCHEMA_PREFIX: 'pg_run1_' }))).toMatch(/DATABASE_SCHEMA_PREFIX: .*pg_/);
    expect(problemsOf(() => loadConfig(PlatformConfig, { ...VALID, DATABASE_SCHEMA_PREFIX: 'Run-1' }))).toMatch(/DATABASE_SCHEMA_PREFIX/);
    expect(loadConfig(PlatformConfig, { ...VALID, DATABASE_SCHEMA_PREFIX: 'pgx_' }).DATABASE_SCHEMA_PREFIX).toBe('pgx_');
  });

  it('refuses Kafka credentials that cannot work, naming what is missing, and keeps a SCRAM user it is given', () => {
    expect(problemsOf(() => loadConfig(PlatformConfig, { ...VALID, KAFKA_SASL_MECHANISM: 'scram-sha-512', KAFKA_SASL_USERNAME: 'seed-sms-batch' }))).toMatch(
      /KAFKA_SASL_MECHANISM: KAFKA_SASL_MECHANISM=scram-sha-512 needs KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD/,
    );
    expect(problemsOf(() => loadConfig(PlatformConfig, { ...VALID, KAFKA_SASL_MECHANISM: 'gssapi' }))).toMatch(/KAFKA_SASL_MECHANISM/);
    const scram = loadConfig(PlatformConfig, { ...VALID, KAFKA_SSL: 'true', KAFKA_SASL_MECHANISM: 'scram-sha-512', KAFKA_SASL_USERNAME: 'u', KAFKA_SASL_PASSWORD: 'p' });
    expect([scram.KAFKA_SSL, scram.KAFKA_SASL_MECHANISM, scram.KAFKA_SASL_USERNAME]).toEqual([true, 'scram-sha-512', 'u']);
  });

  it('applies the range rules to coerced numbers', () => {
    expect(problemsOf(() => loadConfig(PlatformConfig, { ...VALID, DATABASE_POOL_SIZE: '0' }))).toMatch(/DATABASE_POOL_SIZE/);
    expect(problemsOf(() => loadConfig(PlatformConfig, { ...VALID, HEALTH_PORT: '65536' }))).toMatch(/HEALTH_PORT/);
  });

  it('lists every problem at once, one line per setting, and nothing about valid settings', () => {
    const message = problemsOf(() =>
      loadConfig(PlatformConfig, {
        DATABASE_URL: 'mysql://seed@localhost/seed',
        LOG_LEVEL: 'loud',
        DATABASE_POOL_SIZE: '500',
        KAFKA_TOPIC_PREFIX: 'Has Spaces',
        KAFKA_REPLICATION_FACTOR: '2',
      }),
    );

    const lines = message.split('\n');
    expect(lines[0]).toBe('invalid configuration:');
    const settings = lines.slice(1).map((line) => line.trim().split(':')[0]);
    expect(settings.sort()).toEqual(['DATABASE_POOL_SIZE', 'DATABASE_URL', 'KAFKA_BROKERS', 'KAFKA_TOPIC_PREFIX', 'LOG_LEVEL']);
    expect(message).toContain('DATABASE_URL: must be a postgres:// URL');
    expect(message).not.toContain('KAFKA_REPLICATION_FACTOR');
  });

  it('reads only the settings the schema declares', () => {
    const config = loadConfig(PlatformConfig, { ...VALID, UNRELATED: 'x', PATH: '/usr/bin' });
    expect(Object.keys(config)).not.toContain('UNRELATED');
    expect(Object.keys(config)).not.toContain('PATH');
  });

  it('does not change the environment object it was given', () => {
    const env = { ...VALID, DATABASE_POOL_SIZE: '25' };
    loadConfig(PlatformConfig, env);
    expect(env).toEqual({ ...VALID, DATABASE_POOL_SIZE: '25' });
  });
});
