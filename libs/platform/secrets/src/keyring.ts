/**
 * Keys with ids, parsed from one setting: `kid:base64key[,kid:base64key...]`. The first key is the
 * current one (used to seal, sign or hash); the others only open, verify or match what was made
 * with them before a rotation.
 */
export interface Keyring {
  readonly current: { id: string; key: Buffer };
  byId(id: string): Buffer | undefined;
  readonly ids: readonly string[];
}

const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;

export class KeyringError extends Error {}

/** Parses and checks a keyring setting; `minBytes` is the shortest key accepted (32 for AES-256 and HMAC). */
export function parseKeyring(spec: string, minBytes = 32): Keyring {
  const entries = spec
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => {
      const colon = part.indexOf(':');
      if (colon < 1) throw new KeyringError('each key must be written kid:base64key');
      const id = part.slice(0, colon);
      if (!KEY_ID.test(id)) throw new KeyringError(`key id "${id}" must be 1-32 characters of [A-Za-z0-9_-]`);
      const key = Buffer.from(part.slice(colon + 1), 'base64');
      if (key.length < minBytes) throw new KeyringError(`key "${id}" must decode to at least ${minBytes} bytes`);
      return { id, key };
    });
  const first = entries[0];
  if (!first) throw new KeyringError('at least one key is required');
  const map = new Map(entries.map((e) => [e.id, e.key]));
  if (map.size !== entries.length) throw new KeyringError('key ids must be unique');
  return { current: first, byId: (id) => map.get(id), ids: entries.map((e) => e.id) };
}
