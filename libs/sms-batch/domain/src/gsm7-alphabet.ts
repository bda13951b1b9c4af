/**
 * GSM 03.38 (3GPP TS 23.038) default alphabet and its extension table.
 * Carriers only accept these characters in a GSM-7 message; anything else forces UCS-2.
 */

/** Septet that announces an extension-table character in the next septet. */
export const GSM7_ESCAPE = 0x1b;

/** Septet sent in place of a character the alphabet lacks (forced GSM7). */
export const GSM7_REPLACEMENT_SEPTET = 0x3f; // '?'

/**
 * The default alphabet indexed by septet value. 0x1B is the escape, not a character,
 * so no text character may map to it.
 */
// prettier-ignore
export const GSM7_DEFAULT_ALPHABET: readonly (string | null)[] = [
  '@', '£', '$', '¥', 'è', 'é', 'ù', 'ì', 'ò', 'Ç', '\n', 'Ø', 'ø', '\r', 'Å', 'å',
  'Δ', '_', 'Φ', 'Γ', 'Λ', 'Ω', 'Π', 'Ψ', 'Σ', 'Θ', 'Ξ', null, 'Æ', 'æ', 'ß', 'É',
  ' ', '!', '"', '#', '¤', '%', '&', "'", '(', ')', '*', '+', ',', '-', '.', '/',
  '0', '1', '2', '3', '4', '5', '6', '7', '8', '9', ':', ';', '<', '=', '>', '?',
  '¡', 'A', 'B', 'C', 'D', 'E', 'F', 'G', 'H', 'I', 'J', 'K', 'L', 'M', 'N', 'O',
  'P', 'Q', 'R', 'S', 'T', 'U', 'V', 'W', 'X', 'Y', 'Z', 'Ä', 'Ö', 'Ñ', 'Ü', '§',
  '¿', 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l', 'm', 'n', 'o',
  'p', 'q', 'r', 's', 't', 'u', 'v', 'w', 'x', 'y', 'z', 'ä', 'ö', 'ñ', 'ü', 'à',
];

/** Extension-table characters by character; each costs two septets (escape + this value). */
export const GSM7_EXTENSION_TABLE: ReadonlyMap<string, number> = new Map([
  ['\f', 0x0a],
  ['^', 0x14],
  ['{', 0x28],
  ['}', 0x29],
  ['\\', 0x2f],
  ['[', 0x3c],
  ['~', 0x3d],
  [']', 0x3e],
  ['|', 0x40],
  ['€', 0x65],
]);

/** Result of {@link gsm7CodeOf} for a character outside both tables. */
export const GSM7_NOT_IN_ALPHABET = -1;
/** Flag set by {@link gsm7CodeOf} on extension-table characters; the low 7 bits are the septet. */
export const GSM7_EXTENSION_FLAG = 0x100;

// Every GSM character is in the BMP, the highest being '€' (U+20AC). A flat table indexed by
// UTF-16 code unit keeps the per-character cost of analysing 10,000 texts to one array read.
const LOOKUP_SIZE = 0x20ad;
const lookup = buildLookup();

function buildLookup(): Int16Array {
  const table = new Int16Array(LOOKUP_SIZE).fill(GSM7_NOT_IN_ALPHABET);
  GSM7_DEFAULT_ALPHABET.forEach((char, septet) => {
    if (char !== null) table[char.charCodeAt(0)] = septet;
  });
  for (const [char, septet] of GSM7_EXTENSION_TABLE) {
    table[char.charCodeAt(0)] = GSM7_EXTENSION_FLAG | septet;
  }
  return table;
}

/**
 * The GSM-7 code of one UTF-16 code unit: its septet (0x00-0x7F), `GSM7_EXTENSION_FLAG | septet`
 * for an extension-table character, or `GSM7_NOT_IN_ALPHABET`.
 */
export function gsm7CodeOf(charCode: number): number {
  return charCode < LOOKUP_SIZE ? (lookup[charCode] ?? GSM7_NOT_IN_ALPHABET) : GSM7_NOT_IN_ALPHABET;
}

export function isGsm7Extension(code: number): boolean {
  return code >= GSM7_EXTENSION_FLAG;
}
