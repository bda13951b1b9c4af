/** How sibling parts name their message: a UDH 8- or 16-bit reference, or the SAR TLVs. */
export type ConcatenationScheme = 'udh8' | 'udh16' | 'sar';

export interface Concatenation {
  scheme: ConcatenationScheme;
  reference: number;
  /** How many parts the message has, 1-255. */
  total: number;
  /** This part's place, 1..total. */
  sequence: number;
}

export interface SplitUserData {
  /** The user data after the header. */
  body: Uint8Array;
  concatenation: Concatenation | null;
}

const IEI_CONCAT_8BIT = 0x00;
const IEI_CONCAT_16BIT = 0x08;

/**
 * Splits a user data header (3GPP TS 23.040 9.2.3.24: UDHL, then IEI/IEL/data elements) from the
 * text. Only the concatenation elements matter here; the others (ports, national language shifts,
 * ...) are skipped. A header that runs past the data cannot be told from text, so it is returned
 * null and the caller keeps the octets as they are rather than guess where the text starts.
 */
export function splitUserDataHeader(userData: Uint8Array): SplitUserData | null {
  const headerEnd = 1 + (userData[0] ?? 0);
  if (userData.length === 0 || headerEnd > userData.length) return null;
  let concatenation: Concatenation | null = null;
  let offset = 1;
  while (offset < headerEnd) {
    const iei = userData[offset] ?? 0;
    const length = userData[offset + 1];
    const dataStart = offset + 2;
    if (length === undefined || dataStart + length > headerEnd) return null;
    concatenation ??= concatenationElement(iei, userData.subarray(dataStart, dataStart + length));
    offset = dataStart + length;
  }
  return { body: userData.subarray(headerEnd), concatenation };
}

function concatenationElement(iei: number, data: Uint8Array): Concatenation | null {
  if (iei === IEI_CONCAT_8BIT && data.length === 3) {
    return validConcatenation('udh8', data[0] ?? 0, data[1] ?? 0, data[2] ?? 0);
  }
  if (iei === IEI_CONCAT_16BIT && data.length === 4) {
    return validConcatenation('udh16', ((data[0] ?? 0) << 8) | (data[1] ?? 0), data[2] ?? 0, data[3] ?? 0);
  }
  return null;
}

/**
 * A concatenation the part can be filed under, or null: a total of 0, a sequence of 0 or past the
 * total cannot be placed among siblings (23.040 says to ignore such an element), and a message of
 * one part has no siblings to wait for. Either way the part is a message on its own.
 */
export function validConcatenation(scheme: ConcatenationScheme, reference: number, total: number, sequence: number): Concatenation | null {
  if (total < 2 || sequence < 1 || sequence > total) return null;
  return { scheme, reference, total, sequence };
}
