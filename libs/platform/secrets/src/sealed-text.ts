import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Keyring } from './keyring';

/**
 * Authenticated encryption (AES-256-GCM) for texts that must cross Kafka and the event logs without
 * being readable there: an OTP message, a guest link. Only services given the keyring can open
 * them. Form: `sealed.v1.<keyId>.<iv>.<ciphertext+tag>` (base64url parts).
 */
const PREFIX = 'sealed.v1.';
const IV_BYTES = 12;
const TAG_BYTES = 16;

export class SealedTextError extends Error {}

export function isSealed(value: string): boolean {
  return value.startsWith(PREFIX);
}

export function sealText(keyring: Keyring, plaintext: string): string {
  const { id, key } = keyring.current;
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key.subarray(0, 32), iv);
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return `${PREFIX}${id}.${iv.toString('base64url')}.${body.toString('base64url')}`;
}

export function openSealedText(keyring: Keyring, sealed: string): string {
  if (!isSealed(sealed)) throw new SealedTextError('not a sealed text');
  const [id, ivPart, bodyPart, ...rest] = sealed.slice(PREFIX.length).split('.');
  if (!id || !ivPart || !bodyPart || rest.length > 0) throw new SealedTextError('malformed sealed text');
  const key = keyring.byId(id);
  if (!key) throw new SealedTextError(`sealed with unknown key "${id}"`);
  const body = Buffer.from(bodyPart, 'base64url');
  if (body.length < TAG_BYTES) throw new SealedTextError('malformed sealed text');
  const decipher = createDecipheriv('aes-256-gcm', key.subarray(0, 32), Buffer.from(ivPart, 'base64url'));
  decipher.setAuthTag(body.subarray(body.length - TAG_BYTES));
  try {
    return Buffer.concat([decipher.update(body.subarray(0, body.length - TAG_BYTES)), decipher.final()]).toString('utf8');
  } catch {
    throw new SealedTextError('sealed text failed authentication');
  }
}
