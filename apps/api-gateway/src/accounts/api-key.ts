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

export function hashApiKey(apiKey: string): Buffer {
  return createHash('sha256').update(apiKey, 'utf8').digest();
}
