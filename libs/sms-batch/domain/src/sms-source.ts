/** Product limits on the sender identifier (product-decisions.md, "Batch SMS"). */
export const MAX_ALPHANUMERIC_SOURCE_LENGTH = 11;
export const MAX_NUMERIC_SOURCE_DIGITS = 16;
/** Longest numeric source treated as a short code rather than a full number. */
export const MAX_SHORT_CODE_DIGITS = 8;

export type SourceKind = 'alphanumeric' | 'international' | 'shortcode';

const NUMERIC_SOURCE = /^\+?[0-9]+$/;

/**
 * Numeric sources (optional leading `+`, then digits) may have 16 digits; anything else is an
 * alphanumeric sender id, which GSM limits to 11 characters.
 */
export function isSourceWithinLimit(source: string): boolean {
  if (NUMERIC_SOURCE.test(source)) return digitCount(source) <= MAX_NUMERIC_SOURCE_DIGITS;
  return Array.from(source).length <= MAX_ALPHANUMERIC_SOURCE_LENGTH;
}

/**
 * How the carrier must be told to read the source (SMPP TON/NPI). A leading `+` always means a
 * full international number, whatever its length: nobody dials a short code with `+`.
 */
export function sourceKind(source: string): SourceKind {
  if (!NUMERIC_SOURCE.test(source)) return 'alphanumeric';
  if (source.startsWith('+')) return 'international';
  return digitCount(source) <= MAX_SHORT_CODE_DIGITS ? 'shortcode' : 'international';
}

function digitCount(numericSource: string): number {
  return numericSource.startsWith('+') ? numericSource.length - 1 : numericSource.length;
}
