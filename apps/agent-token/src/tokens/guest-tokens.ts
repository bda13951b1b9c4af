import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Keyring } from '@seed/platform-secrets';
import { InvalidTokenError } from './agent-tokens';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const FORM = /^([A-Za-z0-9_-]{1,32})\.([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{22})$/;
/** Keeps these MACs apart from the JWT signatures made with the same keys (those sign `eyJ...`). */
const PURPOSE = 'seed guest-room v1:';

/**
 * The guest token of a guest link: `<kid>.<room id, 16 bytes>.<HMAC-SHA256 of the room id,
 * first 16 bytes>`, base64url, 48 characters with a two-character key id. A JWT would make the
 * guest-link SMS three parts instead of one; this token carries nothing but the room, and the room
 * says until when it may be used. It is deterministic: the same room and key give the same link,
 * so it is issued again whenever needed and never stored. Verified by `kid`, as agent tokens are.
 */
export class GuestTokens {
  constructor(private readonly keys: Keyring) {}

  sign(roomId: string, keyId: string): string {
    if (!UUID.test(roomId)) throw new Error('a room id is a lower-case UUID');
    const key = this.keys.byId(keyId);
    if (!key) throw new Error(`signing key ${keyId} is not in AGENT_TOKEN_SIGNING_KEYS`);
    return `${keyId}.${Buffer.from(roomId.replaceAll('-', ''), 'hex').toString('base64url')}.${mac(key, roomId).toString('base64url')}`;
  }

  /** The room the token is for; throws InvalidTokenError for anything else. */
  verify(token: string): { roomId: string } {
    const match = FORM.exec(token);
    if (!match) throw new InvalidTokenError('not a guest token');
    const [, keyId, room, given] = match as unknown as [string, string, string, string];
    const key = this.keys.byId(keyId);
    if (!key) throw new InvalidTokenError('the token names no signing key that is held');
    const hex = Buffer.from(room, 'base64url').toString('hex');
    const roomId = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
    const expected = mac(key, roomId);
    const actual = Buffer.from(given, 'base64url');
    // Canonical base64url only (22 characters hold 132 bits; the last 4 must be zero), so one
    // room has exactly one token per key.
    if (actual.toString('base64url') !== given || Buffer.from(hex, 'hex').toString('base64url') !== room) {
      throw new InvalidTokenError('not a guest token');
    }
    if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) throw new InvalidTokenError('the token is not valid');
    return { roomId };
  }
}

function mac(key: Buffer, roomId: string): Buffer {
  return createHmac('sha256', key).update(PURPOSE + roomId).digest().subarray(0, 16);
}
