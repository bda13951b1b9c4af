import type { SmsEncodingName } from '@seed/sms-batch-contracts';
import {
  GSM7_ESCAPE,
  GSM7_EXTENSION_FLAG,
  GSM7_NOT_IN_ALPHABET,
  GSM7_REPLACEMENT_SEPTET,
  gsm7CodeOf,
  isGsm7Extension,
} from './gsm7-alphabet';

export type SmsEncoding = 'GSM7' | 'UCS2';

export interface TextAnalysis {
  encoding: SmsEncoding;
  /** The text as it will be sent: forced GSM7 replaces characters outside the alphabet with `?`. */
  text: string;
  /** GSM7: septets, extension characters counting two. UCS2: UTF-16 code units. */
  units: number;
  /** SMS parts the text needs. An empty text still needs one (an empty SMS is one PDU). */
  parts: number;
}

/** Product limit on one message (product-decisions.md, "Batch SMS"). */
export const MAX_PARTS = 10;

export const GSM7_SINGLE_PART_SEPTETS = 160;
/** A concatenated part loses 7 septets to the 6-octet concatenation UDH. */
export const GSM7_CONCATENATED_PART_SEPTETS = 153;
export const UCS2_SINGLE_PART_UNITS = 70;
/** A concatenated part loses 3 UTF-16 units to the 6-octet concatenation UDH. */
export const UCS2_CONCATENATED_PART_UNITS = 67;

const SURROGATE = /[\uD800-\uDFFF]/;
const REPLACEMENT_CHAR = '?';

/**
 * Chooses the encoding and counts units and parts. AUTO picks GSM7 iff every character is in the
 * default alphabet or the extension table. Forced GSM7 sends characters outside it as `?`
 * (one `?` per code point, so an emoji becomes one `?`). Forced UCS2 sends the UTF-16 text as is.
 */
export function analyzeText(text: string, requested: SmsEncodingName = 'AUTO'): TextAnalysis {
  if (requested === 'UCS2') return analyzeUcs2(text);
  const septets = gsm7SeptetsIfEncodable(text);
  if (septets !== null) return analyzedGsm7(text, septets);
  if (requested === 'GSM7') {
    const sendable = replaceCharactersOutsideGsm7(text);
    return analyzedGsm7(sendable, sendableGsm7Septets(sendable));
  }
  return analyzeUcs2(text);
}

export function isWithinTextLimit(analysis: Pick<TextAnalysis, 'parts'>): boolean {
  return analysis.parts <= MAX_PARTS;
}

/**
 * Septet values of the text, an extension character as `[0x1B, septet]`. Characters outside the
 * alphabet become `?`, one per code point, as {@link analyzeText} counts them.
 */
export function encodeGsm7Septets(text: string): number[] {
  const septets: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const code = gsm7CodeOf(text.charCodeAt(i));
    if (code === GSM7_NOT_IN_ALPHABET) {
      septets.push(GSM7_REPLACEMENT_SEPTET);
      if (isSurrogatePairAt(text, i)) i++;
    } else if (isGsm7Extension(code)) {
      septets.push(GSM7_ESCAPE, code & ~GSM7_EXTENSION_FLAG);
    } else {
      septets.push(code);
    }
  }
  return septets;
}

/**
 * The text of each SMS part. A part never ends between an escape and its extension character
 * (GSM7), nor between the two halves of a surrogate pair (UCS2): the handset would show garbage.
 */
export function splitIntoParts(text: string, encoding: SmsEncoding): string[] {
  const starts =
    encoding === 'GSM7'
      ? sendableGsm7Septets(text) <= GSM7_SINGLE_PART_SEPTETS
        ? [0]
        : gsm7PartStarts(text)
      : text.length <= UCS2_SINGLE_PART_UNITS
        ? [0]
        : ucs2PartStarts(text);
  return starts.map((start, index) => text.slice(start, starts[index + 1] ?? text.length));
}

function analyzedGsm7(text: string, septets: number): TextAnalysis {
  return { encoding: 'GSM7', text, units: septets, parts: countGsm7Parts(text, septets) };
}

function analyzeUcs2(text: string): TextAnalysis {
  return { encoding: 'UCS2', text, units: text.length, parts: countUcs2Parts(text) };
}

function countGsm7Parts(text: string, septets: number): number {
  if (septets <= GSM7_SINGLE_PART_SEPTETS) return 1;
  // Without double-width characters no boundary can move, so the walk is only for the rare rest.
  if (septets === text.length) return Math.ceil(septets / GSM7_CONCATENATED_PART_SEPTETS);
  return gsm7PartStarts(text).length;
}

function countUcs2Parts(text: string): number {
  if (text.length <= UCS2_SINGLE_PART_UNITS) return 1;
  if (!SURROGATE.test(text)) return Math.ceil(text.length / UCS2_CONCATENATED_PART_UNITS);
  return ucs2PartStarts(text).length;
}

/** Septets of a text that is entirely in the alphabet, else null. */
function gsm7SeptetsIfEncodable(text: string): number | null {
  let septets = 0;
  for (let i = 0; i < text.length; i++) {
    const code = gsm7CodeOf(text.charCodeAt(i));
    if (code === GSM7_NOT_IN_ALPHABET) return null;
    septets += isGsm7Extension(code) ? 2 : 1;
  }
  return septets;
}

/** Septets as sent, counting each code point outside the alphabet as its one `?`. */
function sendableGsm7Septets(text: string): number {
  let septets = 0;
  for (let i = 0; i < text.length; i++) {
    const code = gsm7CodeOf(text.charCodeAt(i));
    if (code === GSM7_NOT_IN_ALPHABET && isSurrogatePairAt(text, i)) i++;
    septets += isGsm7Extension(code) ? 2 : 1;
  }
  return septets;
}

function replaceCharactersOutsideGsm7(text: string): string {
  let sendable = '';
  for (let i = 0; i < text.length; i++) {
    if (gsm7CodeOf(text.charCodeAt(i)) !== GSM7_NOT_IN_ALPHABET) {
      sendable += text.charAt(i);
    } else {
      sendable += REPLACEMENT_CHAR;
      if (isSurrogatePairAt(text, i)) i++;
    }
  }
  return sendable;
}

/** Start index (in UTF-16 units) of each concatenated GSM7 part. */
function gsm7PartStarts(text: string): number[] {
  const starts = [0];
  let used = 0;
  for (let i = 0; i < text.length; i++) {
    const start = i;
    const code = gsm7CodeOf(text.charCodeAt(i));
    if (code === GSM7_NOT_IN_ALPHABET && isSurrogatePairAt(text, i)) i++;
    const width = isGsm7Extension(code) ? 2 : 1;
    if (used + width > GSM7_CONCATENATED_PART_SEPTETS) {
      starts.push(start);
      used = 0;
    }
    used += width;
  }
  return starts;
}

/** Start index of each concatenated UCS2 part. */
function ucs2PartStarts(text: string): number[] {
  const starts = [0];
  let used = 0;
  for (let i = 0; i < text.length; i++) {
    const start = i;
    const width = isSurrogatePairAt(text, i) ? 2 : 1;
    i += width - 1;
    if (used + width > UCS2_CONCATENATED_PART_UNITS) {
      starts.push(start);
      used = 0;
    }
    used += width;
  }
  return starts;
}

function isSurrogatePairAt(text: string, index: number): boolean {
  const high = text.charCodeAt(index);
  if (high < 0xd800 || high > 0xdbff) return false;
  const low = text.charCodeAt(index + 1);
  return low >= 0xdc00 && low <= 0xdfff;
}
