import { ConfigError, loadConfig } from './load-config';
import { PlatformConfig } from './platform.config';

const secure = {
  REQUIRE_SECURE_CONNECTIONS: 'true',
  DATABASE_URL: 'postgres://seed_sms_batch@db:5432/seed?sslmode=verify-full&sslrootcert=/etc/ca.crt',
  KAFKA_BROKERS: 'kafka:9093',
  KAFKA_SSL_CA: '/etc/seed/kafka-ca/ca.crt',
  KAFKA_SASL_MECHANISM: 'scram-sha-512',
  KAFKA_SASL_USERNAME: 'seed-sms-batch',
  KAFKA_SASL_PASSWORD: 'secret',
};

const problem = (env: Record<string, string>): string => {
  try {
    loadConfig(PlatformConfig, env);
    return '';
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return error.message;
  }
};

describe('REQUIRE_SECURE_CONNECTIONS', () => {
  it('starts with verify-full to PostgreSQL and TLS with a SASL user to Kafka', () => {
    expect(problem(secure)).toBe('');
  });

  it.each([
    ['no sslmode', { DATABASE_URL: 'postgres://u:p@db:5432/seed' }, 'sslmode=(none), not verify-full'],
    ['verify-ca, which takes any host the CA signed', { DATABASE_URL: 'postgres://u@db/seed?sslmode=verify-ca' }, 'sslmode=verify-ca, not verify-full'],
    ['require, which checks no certificate', { DATABASE_URL: 'postgres://u@db/seed?sslmode=require' }, 'sslmode=require, not verify-full'],
    ['plaintext Kafka', { KAFKA_SSL_CA: '' }, 'Kafka is reached without TLS'],
    ['Kafka without a user', { KAFKA_SASL_MECHANISM: '', KAFKA_SASL_USERNAME: '', KAFKA_SASL_PASSWORD: '' }, 'Kafka is reached without a SASL user'],
  ])('refuses to start with %s', (_, change, expected) => {
    expect(problem({ ...secure, ...change })).toContain(expected);
  });

  it('is off by default, for a local stack', () => {
    expect(problem({ DATABASE_URL: 'postgres://u:p@localhost:5432/seed', KAFKA_BROKERS: 'localhost:9092' })).toBe('');
  });
});
