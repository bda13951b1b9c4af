import { randomBytes } from 'node:crypto';
import { loadConfig } from '@seed/platform-config';
import { GatewayConfig } from '../gateway.config';
import { estimatedBits, tokenWeakness } from './token-strength';

const env = (extra: Record<string, string>) => ({
  DATABASE_URL: 'postgres://t@127.0.0.1:1/t',
  KAFKA_BROKERS: '127.0.0.1:1',
  MESSAGE_SEALING_KEYS: `k:${randomBytes(32).toString('base64')}`,
  VERIFY_CODE_HASH_KEYS: `k:${randomBytes(32).toString('base64')}`,
  ...extra,
});

describe('tokenWeakness', () => {
  it('accepts what the dev stack, the e2e harness and the docs generate', () => {
    for (let i = 0; i < 200; i++) {
      expect(tokenWeakness(randomBytes(24).toString('hex'))).toBeNull(); // npm start, stack harness, openssl rand -hex 24
      expect(tokenWeakness(randomBytes(16).toString('hex'))).toBeNull(); // 32 hex: 128 bits exactly
      expect(tokenWeakness(randomBytes(24).toString('base64url'))).toBeNull();
      expect(tokenWeakness(randomBytes(32).toString('base64'))).toBeNull(); // openssl rand -base64 32
    }
  });

  it('refuses the documented placeholders', () => {
    for (const placeholder of ['CHANGE-ME', 'replace-with-a-long-random-operator-secret', 'placeholder-admin-token-for-documents', 'changeme'.repeat(5)]) {
      expect(tokenWeakness(placeholder)).toMatch(/placeholder/);
    }
  });

  it('refuses fewer than 128 estimated bits: 31 hex, 21 base64url, a long lowercase word', () => {
    expect(tokenWeakness(randomBytes(16).toString('hex').slice(0, 31))).toMatch(/bits of entropy/);
    expect(tokenWeakness(randomBytes(16).toString('base64url').slice(0, 21).replace(/[a-z]/, 'A').replace(/[A-Z]/, 'a'))).toMatch(/bits of entropy/);
    expect(tokenWeakness('correcthorsebatterystaple')).toMatch(/bits of entropy/);
    expect(tokenWeakness('')).toBe('is not set');
    expect(estimatedBits('0123456789abcdef0123456789abcdef')).toBe(128);
  });

  it('refuses obvious patterns however long', () => {
    expect(tokenWeakness('a'.repeat(64))).not.toBeNull();
    expect(tokenWeakness('Ab1-'.repeat(16))).toBe('is one string repeated');
    const fourDigits = Array.from(randomBytes(64), (b) => '0123'[b % 4]).join('');
    expect(tokenWeakness(fourDigits)).toMatch(/distinct characters/);
    expect(tokenWeakness('abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ')).toMatch(/consecutive/);
  });

  it('is checked when the gateway loads its settings: ADMIN_TOKEN always, METRICS_TOKEN when set', () => {
    expect(() => loadConfig(GatewayConfig, env({ ADMIN_TOKEN: 'CHANGE-ME' }))).toThrow(/ADMIN_TOKEN looks like a documented placeholder/);
    expect(() => loadConfig(GatewayConfig, env({ ADMIN_TOKEN: 'abcdef0123456789' }))).toThrow(/ADMIN_TOKEN has about 64 bits/);
    expect(() => loadConfig(GatewayConfig, env({}))).toThrow(/ADMIN_TOKEN is not set/);
    const admin = randomBytes(24).toString('hex');
    expect(() => loadConfig(GatewayConfig, env({ ADMIN_TOKEN: admin, METRICS_TOKEN: 'short' }))).toThrow(/METRICS_TOKEN has about/);
    const config = loadConfig(GatewayConfig, env({ ADMIN_TOKEN: admin }));
    expect(config.METRICS_TOKEN).toBe('');
    expect(config.ADMIN_HTTP_HOST).toBe('127.0.0.1');
    expect(config.HTTP_HOST).toBe('0.0.0.0');
  });
});
