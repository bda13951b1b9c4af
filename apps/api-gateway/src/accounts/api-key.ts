import { createHash, randomBytes } from 'node:crypto';

const KEY_PREFIX = 'sk_';

export interface NewApiKey {
  apiKeyId: string;
  /** Shown once, to the operator who created it; never stored, never logged. */
  apiKey: string;
  hash: Buffer;
}

export function generateApiKey(): NewApiKey {
  const apiKey = `${KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
  return { apiKeyId: `key_${randomBytes(8).toString('hex')}`, apiKey, hash: hashApiKey(apiKey) };
}

/** Every key `generateApiKey` makes (and so every key there is): anything else is unknown without a lookup. */
const KEY_FORM = /^sk_[A-Za-z0-9_-]{43}$/;

export function isWellFormedApiKey(apiKey: string): boolean {
  return KEY_FORM.test(apiKey);
}

export function hashApiKey(apiKey: string): Buffer {
  return createHash('sha256').update(apiKey, 'utf8').digest();
}
