import { findTlv, tlvInteger, type Tlv } from './smpp-tlv';
import { EsmClass, TlvTag } from './smpp.constants';

/** Where a part sits in a concatenated message: from the UDH (IEI 0x00 / 0x08) or SAR TLVs. */
export interface ConcatenationInfo {
  reference: number;
  total: number;
  sequence: number;
}

export interface UserData {
  /** Text octets, the user data header removed. */
  payload: Buffer;
  concatenation: ConcatenationInfo | null;
}

const IEI_CONCAT_8BIT_REF = 0x00;
const IEI_CONCAT_16BIT_REF = 0x08;

/**
 * The text octets of a submit_sm (short_message, or message_payload when short_message is empty)
 * and its concatenation header if any. A malformed UDH is left in the payload rather than refused:
 * the inspection API then shows what the ESME really sent.
 */
export function readUserData(esmClass: number, shortMessage: Buffer, tlvs: readonly Tlv[]): UserData {
  const body = shortMessage.length > 0 ? shortMessage : (findTlv(tlvs, TlvTag.message_payload) ?? shortMessage);
  if (esmClass & EsmClass.udhIndicator) {
    const udh = parseUdh(body);
    if (udh) return udh;
  }
  return { payload: body, concatenation: sarConcatenation(tlvs) };
}

function parseUdh(body: Buffer): UserData | null {
  const headerLength = body[0];
  if (headerLength === undefined || 1 + headerLength > body.length) return null;
  let concatenation: ConcatenationInfo | null = null;
  let pos = 1;
  const end = 1 + headerLength;
  while (pos + 2 <= end) {
    const iei = body[pos] as number;
    const length = body[pos + 1] as number;
    const data = pos + 2;
    if (data + length > end) return null;
    if (iei === IEI_CONCAT_8BIT_REF && length === 3) {
      concatenation = checked(body[data] as number, body[data + 1] as number, body[data + 2] as number);
    } else if (iei === IEI_CONCAT_16BIT_REF && length === 4) {
      concatenation = checked(body.readUInt16BE(data), body[data + 2] as number, body[data + 3] as number);
    }
    pos = data + length;
  }
  return { payload: body.subarray(end), concatenation };
}

function sarConcatenation(tlvs: readonly Tlv[]): ConcatenationInfo | null {
  const reference = tlvInteger(findTlv(tlvs, TlvTag.sar_msg_ref_num));
  const total = tlvInteger(findTlv(tlvs, TlvTag.sar_total_segments));
  const sequence = tlvInteger(findTlv(tlvs, TlvTag.sar_segment_seqnum));
  if (reference === undefined || total === undefined || sequence === undefined) return null;
  return checked(reference, total, sequence);
}

/** A one-part "concatenated" message, or one with impossible numbers, is a plain message. */
function checked(reference: number, total: number, sequence: number): ConcatenationInfo | null {
  if (total < 2 || sequence < 1 || sequence > total) return null;
  return { reference, total, sequence };
}
