import type { Tlv } from './smpp-tlv';

/**
 * SMPP 3.4 PDUs as the simulator handles them, decoded. Only the operations the simulator serves
 * are typed; any other command id decodes as `unknown` so the server can answer generic_nack.
 */

export interface Header {
  commandStatus: number;
  sequenceNumber: number;
}

export type BindCommand = 'bind_transmitter' | 'bind_receiver' | 'bind_transceiver';
export type BindRespCommand = `${BindCommand}_resp`;

export interface BindPdu extends Header {
  command: BindCommand;
  systemId: string;
  password: string;
  systemType: string;
  interfaceVersion: number;
  addrTon: number;
  addrNpi: number;
  addressRange: string;
}

export interface BindRespPdu extends Header {
  command: BindRespCommand;
  systemId: string;
  tlvs: Tlv[];
}

/** submit_sm and deliver_sm share one body layout. */
export interface ShortMessagePdu extends Header {
  command: 'submit_sm' | 'deliver_sm';
  serviceType: string;
  sourceAddrTon: number;
  sourceAddrNpi: number;
  sourceAddr: string;
  destAddrTon: number;
  destAddrNpi: number;
  destinationAddr: string;
  esmClass: number;
  protocolId: number;
  priorityFlag: number;
  scheduleDeliveryTime: string;
  validityPeriod: string;
  registeredDelivery: number;
  replaceIfPresentFlag: number;
  dataCoding: number;
  smDefaultMsgId: number;
  shortMessage: Buffer;
  tlvs: Tlv[];
}

export interface MessageIdRespPdu extends Header {
  command: 'submit_sm_resp' | 'deliver_sm_resp';
  messageId: string;
}

export interface EmptyPdu extends Header {
  command: 'enquire_link' | 'enquire_link_resp' | 'unbind' | 'unbind_resp' | 'generic_nack';
}

export interface UnknownPdu extends Header {
  command: 'unknown';
  commandId: number;
  body: Buffer;
}

export type Pdu = BindPdu | BindRespPdu | ShortMessagePdu | MessageIdRespPdu | EmptyPdu | UnknownPdu;

/** The bytes are not a well-formed PDU; `status` is what a generic_nack should carry. */
export class PduDecodeError extends Error {
  override readonly name = 'PduDecodeError';
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}
