import 'reflect-metadata';
import { loadConfig } from '@seed/platform-config';
import { WebhookDispatcherConfig } from './webhook-dispatcher.config';

const base = {
  DATABASE_URL: 'postgres://u:p@localhost:5432/db',
  KAFKA_BROKERS: 'localhost:9092',
  WEBHOOK_SECRET_SEALING_KEYS: `k1:${Buffer.alloc(32, 1).toString('base64')}`,
  MESSAGE_SEALING_KEYS: `m1:${Buffer.alloc(32, 2).toString('base64')}`,
};

describe('webhook dispatcher configuration', () => {
  it('has the documented defaults', () => {
    const config = loadConfig(WebhookDispatcherConfig, base);
    expect(config).toMatchObject({
      WEBHOOK_ALLOWED_HOSTS: '',
      WEBHOOK_TIMEOUT_MS: 10_000,
      WEBHOOK_RETRY_BASE_MS: 1000,
      WEBHOOK_RETRY_MAX_DELAY_MS: 3_600_000,
      WEBHOOK_RETRY_MAX_AGE_MS: 86_400_000,
      WEBHOOK_ENDPOINT_CONCURRENCY: 32,
      WEBHOOK_BREAKER_FAILURES: 5,
      WEBHOOK_BREAKER_COOLDOWN_MS: 30_000,
      WEBHOOK_MAX_IN_FLIGHT: 512,
      WEBHOOK_LEASE_MS: 60_000,
      WEBHOOK_SECRET_OVERLAP_MS: 86_400_000,
      WEBHOOK_RECONCILE_AFTER_MS: 900_000,
    });
  });

  it('refuses a missing keyring, a malformed allow-list and a lease shorter than a request', () => {
    expect(() => loadConfig(WebhookDispatcherConfig, { ...base, WEBHOOK_SECRET_SEALING_KEYS: '' })).toThrow(/WEBHOOK_SECRET_SEALING_KEYS/);
    expect(() => loadConfig(WebhookDispatcherConfig, { ...base, MESSAGE_SEALING_KEYS: '' })).toThrow(/MESSAGE_SEALING_KEYS/);
    expect(() => loadConfig(WebhookDispatcherConfig, { ...base, WEBHOOK_ALLOWED_HOSTS: 'a:b:c' })).toThrow(/WEBHOOK_ALLOWED_HOSTS/);
    expect(() => loadConfig(WebhookDispatcherConfig, { ...base, WEBHOOK_TIMEOUT_MS: '10000', WEBHOOK_LEASE_MS: '11000' })).toThrow(/WEBHOOK_LEASE_MS/);
    expect(loadConfig(WebhookDispatcherConfig, { ...base, WEBHOOK_ALLOWED_HOSTS: '127.0.0.1,[::1]:8080' }).WEBHOOK_ALLOWED_HOSTS).toBe('127.0.0.1,[::1]:8080');
  });
});
