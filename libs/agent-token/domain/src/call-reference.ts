/** The contract's limit (8..20) with the product's alphabet. */
export const CALL_REFERENCE = /^[A-Za-z0-9_-]{8,20}$/;

const ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';
export const GENERATED_CALL_REFERENCE_LENGTH = 12;

/**
 * A call_reference for a room created without one: 12 characters from an alphabet without
 * look-alikes (0/O, 1/l/I), from the random bytes given (at least 12; the caller draws them).
 */
export function generateCallReference(randomBytes: Uint8Array): string {
  if (randomBytes.length < GENERATED_CALL_REFERENCE_LENGTH) throw new Error('12 random bytes are needed');
  let out = '';
  // 256 % 57 leaves a small bias; fine for a reference that only has to be unlikely to repeat.
  for (let i = 0; i < GENERATED_CALL_REFERENCE_LENGTH; i++) out += ALPHABET[(randomBytes[i] as number) % ALPHABET.length];
  return out;
}
