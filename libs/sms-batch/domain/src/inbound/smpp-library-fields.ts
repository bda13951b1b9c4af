import { GSM7_ESCAPE, gsm7CodeOf, GSM7_NOT_IN_ALPHABET, isGsm7Extension } from '../gsm7-alphabet';
import type { InboundPdu } from './inbound-pdu';
import { concatOctets } from './octets';

/**
 * The `smpp` library (0.5) hands a parsed deliver_sm's short_message and message_payload over
 * already decoded, as `{ udh?: Buffer[], message: string | Buffer }`: the header as a list of
 * elements without its length octet, and the text decoded by `data_coding & 0x0F` (0 and 1 with
 * its GSM table, 3 as Latin-1, 8 as UTF-16BE; other codings stay octets). Parts must be joined
 * before they are decoded, so this writes those octets back. The library's decoding is reversible
 * except for: a GSM-7 octet above 0x7F (read as a space), a UCS-2 part's leading U+FEFF (dropped as
 * a byte-order mark) or odd last octet (dropped), and national language shift tables (UDH IEI
 * 0x24/0x25, written back with the default table). Plain octets (a Buffer) are taken as they are.
 */
export function inboundPduFromSmppFields(pdu: Readonly<Record<string, unknown>>): InboundPdu {
  const dataCoding = numberOr(pdu['data_coding'], 0);
  return {
    sourceAddr: stringOr(pdu['source_addr']),
    sourceAddrTon: numberOr(pdu['source_addr_ton'], 0),
    destinationAddr: stringOr(pdu['destination_addr']),
    esmClass: numberOr(pdu['esm_class'], 0),
    dataCoding,
    shortMessage: userDataOctets(pdu['short_message'], dataCoding) ?? new Uint8Array(0),
    messagePayload: userDataOctets(pdu['message_payload'], dataCoding),
    sarMsgRefNum: numberOr(pdu['sar_msg_ref_num'], null),
    sarTotalSegments: numberOr(pdu['sar_total_segments'], null),
    sarSegmentSeqnum: numberOr(pdu['sar_segment_seqnum'], null),
  };
}

function userDataOctets(field: unknown, dataCoding: number): Uint8Array | null {
  if (field instanceof Uint8Array) return field;
  if (typeof field === 'string') return encodeAsLibraryDecoded(field, dataCoding);
  if (typeof field !== 'object' || field === null) return null;
  const { udh, message } = field as { udh?: unknown; message?: unknown };
  const text = message instanceof Uint8Array ? message : encodeAsLibraryDecoded(typeof message === 'string' ? message : '', dataCoding);
  return Array.isArray(udh) ? concatOctets([headerOctets(udh.filter((element) => element instanceof Uint8Array)), text]) : text;
}

/** The UDH with its length octet back in front of the elements. */
function headerOctets(elements: readonly Uint8Array[]): Uint8Array {
  const body = concatOctets(elements);
  return concatOctets([Uint8Array.of(body.length), body]);
}

function encodeAsLibraryDecoded(text: string, dataCoding: number): Uint8Array {
  switch (dataCoding & 0x0f) {
    case 0x00:
    case 0x01:
      return gsm7Octets(text);
    case 0x08:
      return utf16beOctets(text);
    default:
      return Uint8Array.from(text, (char) => char.charCodeAt(0) & 0xff);
  }
}

/**
 * The library reads an escape whose septet the extension table lacks as a bare '\x1B' and the next
 * character, so '\x1B' goes back as the escape septet; it reads an octet outside the alphabet as a
 * space, so anything else unknown goes back as a space too.
 */
function gsm7Octets(text: string): Uint8Array {
  const septets: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    const code = unit === GSM7_ESCAPE ? GSM7_ESCAPE : gsm7CodeOf(unit);
    if (code === GSM7_NOT_IN_ALPHABET) septets.push(0x20);
    else if (isGsm7Extension(code)) septets.push(GSM7_ESCAPE, code & 0x7f);
    else septets.push(code);
  }
  return Uint8Array.from(septets);
}

/** Code unit by code unit, so a lone surrogate (half an emoji, the rest in a sibling) survives. */
function utf16beOctets(text: string): Uint8Array {
  const octets = new Uint8Array(text.length * 2);
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    octets[2 * i] = unit >> 8;
    octets[2 * i + 1] = unit & 0xff;
  }
  return octets;
}

function stringOr(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function numberOr<T extends number | null>(value: unknown, fallback: T): number | T {
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}
