import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kafkaSecurity, kafkaSecurityProblem, type KafkaSecuritySettings } from './kafka-security';

const none: KafkaSecuritySettings = { ssl: false, sslCaFile: '', saslMechanism: '', saslUsername: '', saslPassword: '' };

describe('kafkaSecurity', () => {
  it('adds nothing for a plaintext, unauthenticated cluster', () => {
    expect(kafkaSecurity(none)).toEqual({});
  });

  it('verifies the brokers against the given CA, which alone turns TLS on', () => {
    const ca = join(mkdtempSync(join(tmpdir(), 'kafka-ca-')), 'ca.crt');
    writeFileSync(ca, '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
    expect(kafkaSecurity({ ...none, sslCaFile: ca })).toEqual({ ssl: { ca: [expect.stringContaining('BEGIN CERTIFICATE')], rejectUnauthorized: true } });
    expect(kafkaSecurity({ ...none, ssl: true })).toEqual({ ssl: true });
  });

  it('authenticates with the SCRAM mechanism asked for', () => {
    const scram = { ...none, ssl: true, saslMechanism: 'scram-sha-512' as const, saslUsername: 'seed-sms-batch', saslPassword: 'p' };
    expect(kafkaSecurity(scram)).toEqual({ ssl: true, sasl: { mechanism: 'scram-sha-512', username: 'seed-sms-batch', password: 'p' } });
  });
});

describe('kafkaSecurityProblem', () => {
  it('accepts no security, TLS alone, and SCRAM with a user and password', () => {
    expect(kafkaSecurityProblem(none)).toBeUndefined();
    expect(kafkaSecurityProblem({ ...none, ssl: true })).toBeUndefined();
    expect(kafkaSecurityProblem({ ...none, saslMechanism: 'scram-sha-512', saslUsername: 'u', saslPassword: 'p' })).toBeUndefined();
  });

  it('refuses a mechanism without credentials, credentials without a mechanism, and PLAIN without TLS', () => {
    expect(kafkaSecurityProblem({ ...none, saslMechanism: 'scram-sha-512', saslUsername: 'u' })).toMatch(/needs KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD/);
    expect(kafkaSecurityProblem({ ...none, saslUsername: 'u', saslPassword: 'p' })).toMatch(/KAFKA_SASL_MECHANISM is not/);
    expect(kafkaSecurityProblem({ ...none, saslMechanism: 'plain', saslUsername: 'u', saslPassword: 'p' })).toMatch(/in clear/);
    expect(kafkaSecurityProblem({ ...none, ssl: true, saslMechanism: 'plain', saslUsername: 'u', saslPassword: 'p' })).toBeUndefined();
  });
});
