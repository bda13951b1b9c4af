import type { ConcatenationInfo } from './concatenation';
import type { ConcatenationKind, InboundEncoding } from './inbound-segmentation';
import { encodePdu } from './smpp-pdu.codec';
import type { Tlv } from './smpp-tlv';
import { DataCoding, EsmClass, TlvTag } from './smpp.constants';

/**
 * The deliver_sm of one part of a mobile-originated message: esm_class 0x00 (0x40 with a UDH),
 * the concatenation either as a UDH in front of the text (IEI 0x00 or 0x08) or as the SAR TLVs.
 */

export const DATA_CODING: Readonly<Record<InboundEncoding, number>> = {
  gsm7: DataCoding.gsm7,
  latin1: DataCoding.latin1,
  ucs2: DataCoding.ucs2,
};

export interface InboundPart {
  /** 1-based, in text order. */
  number: number;
  /** Text octets of this part. */
  payload: Buffer;
  /** Concatenation header written before the text, or null. */
  udh: Buffer | null;
  /** Set when the concatenation travels as SAR TLVs. */
  sar: ConcatenationInfo | null;
  esmClass: number;
  /** What goes in short_message: the UDH, then the text. */
  shortMessage: Buffer;
  tlvs: Tlv[];
}

export interface InboundAddresses {
  source: string;
  sourceTon: number;
  sourceNpi: number;
  destination: string;
  destTon: number;
  destNpi: number;
}

/** One part without any header, or every part with the chosen concatenation and `reference`. */
export function buildParts(payloads: readonly Buffer[], concatenation: ConcatenationKind, reference: number): InboundPart[] {
  const total = payloads.length;
  return payloads.map((payload, i) => {
    const number = i + 1;
    if (total === 1) return { number, payload, udh: null, sar: null, esmClass: 0, shortMessage: payload, tlvs: [] };
    if (concatenation === 'sar') {
      const tlvs: Tlv[] = [
        { tag: TlvTag.sar_msg_ref_num, value: u16(reference) },
        { tag: TlvTag.sar_total_segments, value: Buffer.of(total) },
        { tag: TlvTag.sar_segment_seqnum, value: Buffer.of(number) },
      ];
      return { number, payload, udh: null, sar: { reference, total, sequence: number }, esmClass: 0, shortMessage: payload, tlvs };
    }
    const udh =
      concatenation === 'udh8'
        ? Buffer.of(0x05, 0x00, 0x03, reference & 0xff, total, number)
        : Buffer.concat([Buffer.of(0x06, 0x08, 0x04), u16(reference), Buffer.of(total, number)]);
    return { number, payload, udh, sar: null, esmClass: EsmClass.udhIndicator, shortMessage: Buffer.concat([udh, payload]), tlvs: [] };
  });
}

/** deliver_sm for `part`, carrying `sequenceNumber` (each send, resends too, takes a new one). */
export function encodeInboundDeliverSm(addresses: InboundAddresses, dataCoding: number, part: InboundPart, sequenceNumber: number): Buffer {
  return encodePdu({
    command: 'deliver_sm', commandStatus: 0, sequenceNumber,
    serviceType: '', sourceAddrTon: addresses.sourceTon, sourceAddrNpi: addresses.sourceNpi, sourceAddr: addresses.source,
    destAddrTon: addresses.destTon, destAddrNpi: addresses.destNpi, destinationAddr: addresses.destination,
    esmClass: part.esmClass, protocolId: 0, priorityFlag: 0, scheduleDeliveryTime: '', validityPeriod: '',
    registeredDelivery: 0, replaceIfPresentFlag: 0, dataCoding, smDefaultMsgId: 0,
    shortMessage: part.shortMessage, tlvs: part.tlvs,
  });
}

function u16(value: number): Buffer {
  const buffer = Buffer.alloc(2);
  buffer.writeUInt16BE(value);
  return buffer;
}
