import { sourceKind } from './sms-source';
import { encodeGsm7Septets, type SmsEncoding, splitIntoParts } from './sms-text';

/** The fields of one submit_sm PDU (SMPP 3.4, 4.4.1) that depend on the message. */
export interface SubmitSmPart {
  sourceAddr: string;
  sourceAddrTon: number;
  sourceAddrNpi: number;
  destinationAddr: string;
  destAddrTon: number;
  destAddrNpi: number;
  esmClass: number;
  dataCoding: number;
  registeredDelivery: number;
  shortMessage: Uint8Array;
}

export interface SubmitSmMessage {
  /** E.164 digits (a leading `+` is dropped). */
  destination: string;
  /** null or empty: the default source. */
  source: string | null;
  text: string;
  encoding: SmsEncoding;
  /** 0..255, the same for every part and every retry: see {@link concatReferenceFor}. */
  concatReference: number;
}

/** SMPP 3.4, 5.2.5 and 5.2.6. */
export const Ton = { Unknown: 0, International: 1, NetworkSpecific: 3, Alphanumeric: 5 } as const;
export const Npi = { Unknown: 0, Isdn: 1 } as const;

/** esm_class bit 6: short_message starts with a user data header. */
export const ESM_CLASS_UDHI = 0x40;
/** data_coding: SMSC default alphabet (GSM 03.38) and UCS-2. */
export const DATA_CODING_GSM7 = 0x00;
export const DATA_CODING_UCS2 = 0x08;
/** registered_delivery: a receipt on final success or failure. */
export const REGISTERED_DELIVERY_FINAL = 0x01;

/** Concatenated-SMS information element with an 8-bit reference (3GPP TS 23.040, 9.2.3.24.1). */
const UDH_LENGTH = 0x05;
const IEI_CONCAT_8BIT = 0x00;
const IE_CONCAT_LENGTH = 0x03;
const MAX_CONCAT_PARTS = 255;

/**
 * One submit_sm per SMS part. GSM7 goes out as unpacked septets (one per octet, data_coding 0),
 * UCS2 as UTF-16BE (data_coding 8). Several parts each start with the concatenation UDH
 * `05 00 03 <ref> <total> <seq>` and set esm_class 0x40; the split is {@link splitIntoParts}'s,
 * so no part ends inside an escape pair or a surrogate pair and the count is the one the message
 * was accepted with (smsCount).
 */
export function buildSubmitParts(message: SubmitSmMessage, defaultSource: string): SubmitSmPart[] {
  const { concatReference } = message;
  if (!Number.isInteger(concatReference) || concatReference < 0 || concatReference > 0xff) {
    throw new RangeError(`concatReference must be an integer 0..255, got ${concatReference}`);
  }
  const texts = splitIntoParts(message.text, message.encoding);
  if (texts.length > MAX_CONCAT_PARTS) throw new RangeError(`a message has at most ${MAX_CONCAT_PARTS} parts, got ${texts.length}`);
  const source = sourceAddress(message.source || defaultSource);
  const destinationAddr = message.destination.replace(/^\+/, '');
  const concatenated = texts.length > 1;

  return texts.map((text, index) => {
    const payload = message.encoding === 'GSM7' ? Uint8Array.from(encodeGsm7Septets(text)) : utf16be(text);
    return {
      ...source,
      destinationAddr,
      destAddrTon: Ton.International,
      destAddrNpi: Npi.Isdn,
      esmClass: concatenated ? ESM_CLASS_UDHI : 0,
      dataCoding: message.encoding === 'GSM7' ? DATA_CODING_GSM7 : DATA_CODING_UCS2,
      registeredDelivery: REGISTERED_DELIVERY_FINAL,
      shortMessage: concatenated ? withConcatHeader(payload, concatReference, texts.length, index + 1) : payload,
    };
  });
}

/**
 * The concatenation reference of a message: a hash of its umid (FNV-1a, low 8 bits), so a retry
 * after a crash sends the same parts and the handset can still join parts of both attempts.
 */
export function concatReferenceFor(umid: string): number {
  let hash = 0x811c9dc5;
  const key = umid.toLowerCase();
  for (let i = 0; i < key.length; i++) {
    hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
  }
  return (hash ^ (hash >>> 8) ^ (hash >>> 16) ^ (hash >>> 24)) & 0xff;
}

type SourceAddress = Pick<SubmitSmPart, 'sourceAddr' | 'sourceAddrTon' | 'sourceAddrNpi'>;

/** TON/NPI from the source's form; no source at all leaves the choice to the carrier (0/0). */
function sourceAddress(source: string): SourceAddress {
  if (source === '') return { sourceAddr: '', sourceAddrTon: Ton.Unknown, sourceAddrNpi: Npi.Unknown };
  switch (sourceKind(source)) {
    case 'alphanumeric':
      return { sourceAddr: source, sourceAddrTon: Ton.Alphanumeric, sourceAddrNpi: Npi.Unknown };
    case 'international':
      return { sourceAddr: source.replace(/^\+/, ''), sourceAddrTon: Ton.International, sourceAddrNpi: Npi.Isdn };
    case 'shortcode':
      return { sourceAddr: source, sourceAddrTon: Ton.NetworkSpecific, sourceAddrNpi: Npi.Unknown };
  }
}

function withConcatHeader(payload: Uint8Array, reference: number, total: number, sequence: number): Uint8Array {
  const message = new Uint8Array(6 + payload.length);
  message.set([UDH_LENGTH, IEI_CONCAT_8BIT, IE_CONCAT_LENGTH, reference, total, sequence]);
  message.set(payload, 6);
  return message;
}

function utf16be(text: string): Uint8Array {
  const bytes = new Uint8Array(text.length * 2);
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    bytes[2 * i] = unit >> 8;
    bytes[2 * i + 1] = unit & 0xff;
  }
  return bytes;
}
