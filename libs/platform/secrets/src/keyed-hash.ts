import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * HMAC-SHA256 of the parts, joined unambiguously (length-prefixed), as hex. Used to store secrets
 * that only need to be recognised again (OTP codes): without the key a stolen table gives nothing,
 * even for a 4-digit code whose plain hash could be reversed by trying all 10,000 values.
 */
export function keyedHash(key: Buffer, ...parts: string[]): string {
  const mac = createHmac('sha256', key);
  for (const part of parts) {
    const bytes = Buffer.from(part, 'utf8');
    const length = Buffer.alloc(4);
    length.writeUInt32BE(bytes.length);
    mac.update(length).update(bytes);
  }
  return mac.digest('hex');
}

/** Compares two hex digests in constant time (a length mismatch is simply false). */
export function digestsEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && left.length > 0 && timingSafeEqual(left, right);
}
