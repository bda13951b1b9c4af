import { createHash } from 'node:crypto';
import { generateApiKey, hashApiKey, isWellFormedApiKey } from './api-key';

const sha256 = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

describe('generateApiKey', () => {
  it('makes an sk_ key of 256 random bits in base64url and a key_ id of 64 bits in hex', () => {
    const { apiKey, apiKeyId } = generateApiKey();
    expect(apiKey).toMatch(/^sk_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(apiKey.slice(3), 'base64url')).toHaveLength(32);
    expect(apiKeyId).toMatch(/^key_[0-9a-f]{16}$/);
  });

  it('makes a different key and id every time', () => {
    const keys = Array.from({ length: 1000 }, () => generateApiKey());
    expect(new Set(keys.map((k) => k.apiKey)).size).toBe(1000);
    expect(new Set(keys.map((k) => k.apiKeyId)).size).toBe(1000);
    expect(new Set(keys.map((k) => k.hash.toString('hex'))).size).toBe(1000);
  });

  it('keeps only the SHA-256 of the key, which does not contain the key', () => {
    const { apiKey, hash } = generateApiKey();
    expect(hash).toEqual(sha256(apiKey));
    expect(hash).toHaveLength(32);
    for (const encoding of ['utf8', 'hex', 'base64', 'base64url', 'latin1'] as const) {
      expect(hash.toString(encoding)).not.toContain(apiKey);
      expect(hash.toString(encoding)).not.toContain(apiKey.slice(3));
    }
    expect(hash.includes(Buffer.from(apiKey, 'utf8'))).toBe(false);
  });

  it('does not put the key in its id', () => {
    const { apiKey, apiKeyId } = generateApiKey();
    expect(apiKeyId).not.toContain(apiKey.slice(3, 19));
  });
});

describe('hashApiKey', () => {
  it('is the SHA-256 of the key as UTF-8, so a presented key finds its stored hash', () => {
    const { apiKey, hash } = generateApiKey();
    expect(hashApiKey(apiKey)).toEqual(hash);
    expect(hashApiKey('sk_example')).toEqual(sha256('sk_example'));
    expect(hashApiKey('sk_example').toString('hex')).toBe(createHash('sha256').update('sk_example').digest('hex'));
  });

  it('tells keys apart that differ in one character or in case', () => {
    const { apiKey } = generateApiKey();
    const last = apiKey.at(-1) === 'A' ? 'B' : 'A';
    expect(hashApiKey(`${apiKey.slice(0, -1)}${last}`)).not.toEqual(hashApiKey(apiKey));
    expect(hashApiKey('sk_abc')).not.toEqual(hashApiKey('sk_ABC'));
  });
});

describe('isWellFormedApiKey', () => {
  it('accepts every generated key and nothing of another form, so that garbage is refused without a lookup', () => {
    for (let i = 0; i < 100; i++) expect(isWellFormedApiKey(generateApiKey().apiKey)).toBe(true);
    const key = generateApiKey().apiKey;
    for (const bad of ['', 'garbage', 'sk_not-a-key', `${key}x`, key.slice(0, -1), `SK_${key.slice(3)}`, `${key.slice(0, -1)}=`, `${key.slice(0, -1)}\u0000`]) {
      expect(isWellFormedApiKey(bad)).toBe(false);
    }
  });
});
