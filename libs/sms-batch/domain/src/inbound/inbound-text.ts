import { GSM7_DEFAULT_ALPHABET, GSM7_ESCAPE, GSM7_EXTENSION_TABLE } from '../gsm7-alphabet';

/**
 * How an inbound message's user data is written. ASCII is data_coding 1 (IA5): kept apart from
 * GSM7 because the same octet means another character ('@' is 0x40 in ASCII, 0x00 in GSM-7).
 */
export type InboundEncoding = 'GSM7' | 'ASCII' | 'UCS2' | 'LATIN1' | 'BINARY';

/** Stands for octets that no character can be read from (a stray high octet, half a UTF-16 unit). */
export const UNREADABLE_CHARACTER = '\uFFFD';

const GSM7_EXTENSION_BY_SEPTET: ReadonlyMap<number, string> = new Map(
  [...GSM7_EXTENSION_TABLE].map(([char, septet]) => [septet, char]),
);

/**
 * The encoding a data_coding value announces (SMPP 3.4, 5.2.19; the 0xC0-0xFF groups per
 * 3GPP TS 23.038, 4). Codings this platform cannot read (JIS, Cyrillic, Hebrew, KS C 5601, ...)
 * are BINARY, so their octets still reach the customer, as hex.
 */
export function encodingOfDataCoding(dataCoding: number): InboundEncoding {
  switch (dataCoding) {
    case 0x00:
      return 'GSM7';
    case 0x01:
      return 'ASCII';
    case 0x03:
      return 'LATIN1';
    case 0x08:
      return 'UCS2';
  }
  if (dataCoding >= 0xf0) return (dataCoding & 0x04) === 0 ? 'GSM7' : 'BINARY';
  if (dataCoding >= 0xe0) return 'UCS2';
  if (dataCoding >= 0xc0) return 'GSM7';
  return 'BINARY';
}

/**
 * The text of user data (without its UDH). GSM7 is unpacked, one septet per octet, as SMPP
 * carries it. BINARY reads as lowercase hex, so that a customer still receives the octets.
 */
export function decodeUserData(bytes: Uint8Array, encoding: InboundEncoding): string {
  switch (encoding) {
    case 'GSM7':
      return decodeGsm7Septets(bytes);
    case 'ASCII':
      return decodeSingleOctets(bytes, 0x7f);
    case 'LATIN1':
      return decodeSingleOctets(bytes, 0xff);
    case 'UCS2':
      return decodeUtf16be(bytes);
    case 'BINARY':
      return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
  }
}

/**
 * Per 3GPP TS 23.038 6.2.1.1: an escape followed by a septet the extension table lacks shows the
 * default alphabet's character for that septet, and escape-escape (reserved for a further table)
 * shows a space. An escape that ends the text has lost its character (a missing part) and shows
 * nothing.
 */
function decodeGsm7Septets(septets: Uint8Array): string {
  let text = '';
  for (let i = 0; i < septets.length; i++) {
    const septet = septets[i] ?? 0;
    if (septet !== GSM7_ESCAPE) {
      text += defaultCharacter(septet);
      continue;
    }
    const next = septets[i + 1];
    if (next === undefined) break;
    i++;
    text += next === GSM7_ESCAPE ? ' ' : (GSM7_EXTENSION_BY_SEPTET.get(next) ?? defaultCharacter(next));
  }
  return text;
}

function defaultCharacter(septet: number): string {
  return GSM7_DEFAULT_ALPHABET[septet] ?? UNREADABLE_CHARACTER;
}

/**
 * NUL (an IA5 or Latin-1 0x00, a UCS-2 0x0000) is no character a handset shows, and PostgreSQL's
 * jsonb cannot hold U+0000: a text with one could never be recorded, and the carrier would retry
 * its deliver_sm for ever. It reads as U+FFFD, like any other octet no character is read from.
 */
const NUL = 0;

function decodeSingleOctets(bytes: Uint8Array, highest: number): string {
  let text = '';
  for (const byte of bytes) text += byte <= highest && byte !== NUL ? String.fromCharCode(byte) : UNREADABLE_CHARACTER;
  return text;
}

/**
 * UCS-2 as phones send it is UTF-16BE: a surrogate pair is one character. A surrogate without its
 * other half (its part is missing) or an odd last octet cannot be read; they become U+FFFD so the
 * text stays valid Unicode (PostgreSQL's jsonb refuses a lone surrogate).
 */
function decodeUtf16be(bytes: Uint8Array): string {
  const units: number[] = [];
  for (let i = 0; i + 1 < bytes.length; i += 2) units.push(((bytes[i] ?? 0) << 8) | (bytes[i + 1] ?? 0));
  let text = '';
  for (let i = 0; i < units.length; i++) {
    const unit = units[i] ?? 0;
    const next = units[i + 1] ?? 0;
    if (isHighSurrogate(unit) && isLowSurrogate(next)) {
      text += String.fromCharCode(unit, next);
      i++;
    } else {
      text += unit === NUL || isHighSurrogate(unit) || isLowSurrogate(unit) ? UNREADABLE_CHARACTER : String.fromCharCode(unit);
    }
  }
  return bytes.length % 2 === 1 ? text + UNREADABLE_CHARACTER : text;
}

function isHighSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}

function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}
