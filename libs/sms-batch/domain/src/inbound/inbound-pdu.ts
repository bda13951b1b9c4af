import { inboundSender } from './inbound-sender';
import { encodingOfDataCoding, type InboundEncoding } from './inbound-text';
import { splitUserDataHeader, validConcatenation, type Concatenation } from './user-data-header';
import { bytesToBase64 } from './octets';
import { unpackGsm7Septets } from './gsm7-packing';

/**
 * The fields of a deliver_sm / data_sm the decoder needs, with the user data as the octets on the
 * wire (the `smpp` library decodes them: see `inboundPduFromSmppFields`).
 */
export interface InboundPdu {
  sourceAddr: string;
  /** source_addr_ton: how to read the sender (national, international, alphanumeric); 0 when absent. */
  sourceAddrTon?: number;
  destinationAddr: string;
  esmClass: number;
  dataCoding: number;
  shortMessage: Uint8Array;
  /** The message_payload TLV (0x0424), read when short_message is empty. */
  messagePayload?: Uint8Array | null;
  sarMsgRefNum?: number | null;
  sarTotalSegments?: number | null;
  sarSegmentSeqnum?: number | null;
}

/** One part, JSON-safe (it is stored as an event): the user data without the UDH, in base64. */
export interface InboundPart {
  source: string;
  destination: string;
  encoding: InboundEncoding;
  userData: string;
  concatenation: Concatenation | null;
}

export interface InboundPduOptions {
  /**
   * The carrier packs GSM-7 user data (seven septets in seven octets) instead of SMPP's one
   * septet per octet. Off unless a carrier is known to do it: unpacking unpacked text garbles it.
   * It needs the octets as sent: the `smpp` library reads packed octets above 0x7F as spaces.
   */
  gsm7Packed?: boolean;
}

/** esm_class message-type bits 5-2 (SMPP 3.4, 5.2.12); zero is a message from a handset. */
const ESM_CLASS_MESSAGE_TYPE = 0x3c;
/** esm_class UDHI: the user data starts with a user data header. */
const ESM_CLASS_UDH_INDICATOR = 0x40;

/**
 * Whether a deliver_sm reports on a message rather than carrying one from a handset: an SMSC
 * delivery receipt (0x04), SME delivery or manual acknowledgement (0x08, 0x10), conversation abort
 * (0x18) or intermediate notification (0x20). Only a message type of zero is an inbound SMS.
 */
export function isDeliveryReceipt(esmClass: number): boolean {
  return (esmClass & ESM_CLASS_MESSAGE_TYPE) !== 0;
}

/**
 * One inbound part. Concatenation comes from the UDH when it has one (the octets are what the
 * handset wrote), else from the SAR TLVs. A part whose concatenation cannot be placed (total 0,
 * sequence 0 or past the total) is a message on its own; a header that runs past the data leaves
 * the octets as they are, header included: a broken part still reaches the customer instead of
 * failing deep in a carrier connection.
 */
export function parseInboundPdu(pdu: InboundPdu, options: InboundPduOptions = {}): InboundPart {
  const userData = pdu.shortMessage.length > 0 ? pdu.shortMessage : (pdu.messagePayload ?? pdu.shortMessage);
  const split = (pdu.esmClass & ESM_CLASS_UDH_INDICATOR) !== 0 ? splitUserDataHeader(userData) : null;
  const encoding = encodingOfDataCoding(pdu.dataCoding);
  const body = split?.body ?? userData;
  // Parts are stored unpacked, so that siblings join septet by septet whatever the carrier sent.
  const packed = options.gsm7Packed === true && encoding === 'GSM7';
  return {
    source: inboundSender(pdu.sourceAddr, pdu.sourceAddrTon ?? 0, pdu.destinationAddr),
    destination: pdu.destinationAddr,
    encoding,
    userData: bytesToBase64(packed ? unpackGsm7Septets(body, userData.length - body.length) : body),
    concatenation: split?.concatenation ?? sarConcatenation(pdu),
  };
}

function sarConcatenation(pdu: InboundPdu): Concatenation | null {
  const { sarMsgRefNum: reference, sarTotalSegments: total, sarSegmentSeqnum: sequence } = pdu;
  if (reference === null || reference === undefined || total === null || total === undefined) return null;
  if (sequence === null || sequence === undefined) return null;
  return validConcatenation('sar', reference, total, sequence);
}
