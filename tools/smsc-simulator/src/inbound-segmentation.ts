import { encodeGsm7, encodeUcs2 } from './sms-text.codec';

/**
 * Text of a mobile-originated message to the octets of its parts. The natural split is a phone's:
 * as many septets (GSM-7) or code units (UCS-2) as fit beside the concatenation header, never an
 * escape pair or a surrogate pair cut in two. A forced split (`parts`) cuts the encoded text into
 * equal runs of code units whatever the characters, so that a test can put a pair across a part
 * boundary on purpose.
 */

export type InboundEncoding = 'gsm7' | 'latin1' | 'ucs2';
export type ConcatenationKind = 'udh8' | 'udh16' | 'sar';

/** The text cannot be sent as asked; the message says why (the API answers 400 with it). */
export class InboundTextError extends Error {
  override readonly name = 'InboundTextError';
}

/** The 8-bit total and part number fields of the UDH and of SAR allow no more. */
export const MAX_PARTS = 255;

const GSM_QUESTION_MARK = 0x3f;
const GSM_ESCAPE = 0x1b;
const SMS_OCTETS = 140;

/** Characters of `text` outside the GSM 03.38 default alphabet and its extension table. */
export function nonGsm7Characters(text: string): string[] {
  const outside = new Set<string>();
  // encodeGsm7 writes '?' for what it cannot encode; a real '?' encodes to the same septet.
  for (const char of text) if (char !== '?' && encodeGsm7(char)[0] === GSM_QUESTION_MARK) outside.add(char);
  return [...outside];
}

/** A phone's choice: GSM-7 when every character has a septet, else UCS-2. */
export function defaultEncoding(text: string): InboundEncoding {
  return nonGsm7Characters(text).length === 0 ? 'gsm7' : 'ucs2';
}

export function encodeInboundText(text: string, encoding: InboundEncoding): Buffer {
  switch (encoding) {
    case 'gsm7': {
      const outside = nonGsm7Characters(text);
      if (outside.length > 0) throw new InboundTextError(`not in the GSM 7-bit alphabet: ${outside.join(' ')}`);
      return encodeGsm7(text);
    }
    case 'latin1': {
      const outside = [...new Set(Array.from(text).filter((char) => (char.codePointAt(0) as number) > 0xff))];
      if (outside.length > 0) throw new InboundTextError(`not in Latin-1: ${outside.join(' ')}`);
      return Buffer.from(text, 'latin1');
    }
    case 'ucs2':
      return encodeUcs2(text);
  }
}

/** Octets a forced split never cuts: two for UCS-2 (a code unit), one otherwise. */
export function codeUnitOctets(encoding: InboundEncoding): number {
  return encoding === 'ucs2' ? 2 : 1;
}

/** Most text octets in one part: a single message has all 140, a part of several shares them with its header. */
export function partCapacity(encoding: InboundEncoding, concatenation: ConcatenationKind | null): number {
  // SAR parts carry no header in short_message, but over the air the part had a UDH: same room as udh8.
  const header = concatenation === null ? 0 : concatenation === 'udh16' ? 7 : 6;
  const octets = SMS_OCTETS - header;
  switch (encoding) {
    case 'gsm7':
      return Math.floor((octets * 8) / 7); // 160, 153 or 152 septets, one an octet over SMPP
    case 'latin1':
      return octets;
    case 'ucs2':
      return octets & ~1;
  }
}

/** Octets of the character that starts at `at`: escape pairs and surrogate pairs stay whole. */
function characterOctets(bytes: Buffer, at: number, encoding: InboundEncoding): number {
  if (encoding === 'gsm7') return bytes[at] === GSM_ESCAPE && at + 1 < bytes.length ? 2 : 1;
  if (encoding === 'ucs2') {
    const unit = bytes.readUInt16BE(at);
    return unit >= 0xd800 && unit <= 0xdbff && at + 3 < bytes.length ? 4 : 2;
  }
  return 1;
}

/** The split a phone makes: one part when it fits, else the fewest parts with whole characters. */
export function splitNaturally(bytes: Buffer, encoding: InboundEncoding, concatenation: ConcatenationKind): Buffer[] {
  if (bytes.length <= partCapacity(encoding, null)) return [bytes];
  const capacity = partCapacity(encoding, concatenation);
  const parts: Buffer[] = [];
  let start = 0;
  while (start < bytes.length) {
    let end = start;
    while (end < bytes.length) {
      const next = end + characterOctets(bytes, end, encoding);
      if (next - start > capacity) break;
      end = next;
    }
    parts.push(bytes.subarray(start, end));
    start = end;
  }
  if (parts.length > MAX_PARTS) throw new InboundTextError(`the text needs ${parts.length} parts; at most ${MAX_PARTS}`);
  return parts;
}

/**
 * Exactly `count` parts of equal numbers of code units (the first ones get one more when it does
 * not divide), regardless of characters: an escape pair or a surrogate pair may straddle a boundary.
 */
export function splitEvenly(bytes: Buffer, encoding: InboundEncoding, concatenation: ConcatenationKind, count: number): Buffer[] {
  const unit = codeUnitOctets(encoding);
  const units = bytes.length / unit;
  if (count > 1 && count > units) throw new InboundTextError(`${count} parts need at least ${count} code units of text; it has ${units}`);
  const capacity = partCapacity(encoding, count === 1 ? null : concatenation);
  const base = Math.floor(units / count);
  const longer = units % count;
  if ((base + (longer > 0 ? 1 : 0)) * unit > capacity) throw new InboundTextError(`the text does not fit in ${count} part(s) of ${capacity} octets`);
  const parts: Buffer[] = [];
  let start = 0;
  for (let i = 0; i < count; i++) {
    const end = start + (base + (i < longer ? 1 : 0)) * unit;
    parts.push(bytes.subarray(start, end));
    start = end;
  }
  return parts;
}
