import { CommandId, CommandStatus, MAX_PDU_LENGTH, PDU_HEADER_LENGTH, commandNameById } from './smpp.constants';
import { PduDecodeError, type Pdu, type ShortMessagePdu } from './smpp-pdu.types';
import type { Tlv } from './smpp-tlv';

/**
 * SMPP 3.4 PDUs to and from bytes: the 16-octet header, C-octet strings, integers, the
 * length-prefixed short_message and the TLV tail (types in smpp-pdu.types.ts).
 */

class BodyReader {
  constructor(
    private readonly buf: Buffer,
    private pos: number,
    private readonly end: number,
  ) {}

  get remaining(): number {
    return this.end - this.pos;
  }

  u8(): number {
    if (this.pos >= this.end) throw new PduDecodeError(CommandStatus.ESME_RINVCMDLEN, 'body ends inside an integer');
    return this.buf[this.pos++] as number;
  }

  cString(): string {
    const nul = this.buf.indexOf(0, this.pos);
    if (nul < 0 || nul >= this.end) throw new PduDecodeError(CommandStatus.ESME_RINVCMDLEN, 'C-octet string without terminator');
    const value = this.buf.toString('latin1', this.pos, nul);
    this.pos = nul + 1;
    return value;
  }

  /** Copies: the decoded PDU must not pin the socket's read chunk. */
  octets(length: number): Buffer {
    if (length > this.remaining) throw new PduDecodeError(CommandStatus.ESME_RINVMSGLEN, 'sm_length beyond the end of the PDU');
    const value = Buffer.from(this.buf.subarray(this.pos, this.pos + length));
    this.pos += length;
    return value;
  }

  tlvs(): Tlv[] {
    const tlvs: Tlv[] = [];
    while (this.pos < this.end) {
      if (this.remaining < 4) throw new PduDecodeError(CommandStatus.ESME_RINVTLVSTREAM, 'truncated TLV header');
      const tag = this.buf.readUInt16BE(this.pos);
      const length = this.buf.readUInt16BE(this.pos + 2);
      this.pos += 4;
      if (length > this.remaining) throw new PduDecodeError(CommandStatus.ESME_RINVTLVSTREAM, `TLV 0x${tag.toString(16)} overruns the PDU`);
      tlvs.push({ tag, value: Buffer.from(this.buf.subarray(this.pos, this.pos + length)) });
      this.pos += length;
    }
    return tlvs;
  }
}

/** Decodes exactly one PDU; `buf` holds command_length octets (the server frames the stream). */
export function decodePdu(buf: Buffer): Pdu {
  if (buf.length < PDU_HEADER_LENGTH) throw new PduDecodeError(CommandStatus.ESME_RINVCMDLEN, 'shorter than a PDU header');
  const commandLength = buf.readUInt32BE(0);
  if (commandLength !== buf.length) throw new PduDecodeError(CommandStatus.ESME_RINVCMDLEN, 'command_length does not match');
  const commandId = buf.readUInt32BE(4);
  const commandStatus = buf.readUInt32BE(8);
  const sequenceNumber = buf.readUInt32BE(12);
  const body = new BodyReader(buf, PDU_HEADER_LENGTH, commandLength);
  const command = commandNameById.get(commandId);
  switch (command) {
    case 'bind_transmitter':
    case 'bind_receiver':
    case 'bind_transceiver':
      return {
        command, commandStatus, sequenceNumber,
        systemId: body.cString(), password: body.cString(), systemType: body.cString(),
        interfaceVersion: body.u8(), addrTon: body.u8(), addrNpi: body.u8(), addressRange: body.cString(),
      };
    case 'bind_transmitter_resp':
    case 'bind_receiver_resp':
    case 'bind_transceiver_resp':
      // An error response may omit the body (section 4.1).
      return { command, commandStatus, sequenceNumber, systemId: body.remaining > 0 ? body.cString() : '', tlvs: body.tlvs() };
    case 'submit_sm':
    case 'deliver_sm':
      return decodeShortMessage(command, commandStatus, sequenceNumber, body);
    case 'submit_sm_resp':
    case 'deliver_sm_resp':
      return { command, commandStatus, sequenceNumber, messageId: body.remaining > 0 ? body.cString() : '' };
    case 'enquire_link':
    case 'enquire_link_resp':
    case 'unbind':
    case 'unbind_resp':
    case 'generic_nack':
      return { command, commandStatus, sequenceNumber };
    case undefined:
      return { command: 'unknown', commandId, commandStatus, sequenceNumber, body: Buffer.from(buf.subarray(PDU_HEADER_LENGTH)) };
  }
}

function decodeShortMessage(command: ShortMessagePdu['command'], commandStatus: number, sequenceNumber: number, body: BodyReader): ShortMessagePdu {
  const serviceType = body.cString();
  const sourceAddrTon = body.u8();
  const sourceAddrNpi = body.u8();
  const sourceAddr = body.cString();
  const destAddrTon = body.u8();
  const destAddrNpi = body.u8();
  const destinationAddr = body.cString();
  const esmClass = body.u8();
  const protocolId = body.u8();
  const priorityFlag = body.u8();
  const scheduleDeliveryTime = body.cString();
  const validityPeriod = body.cString();
  const registeredDelivery = body.u8();
  const replaceIfPresentFlag = body.u8();
  const dataCoding = body.u8();
  const smDefaultMsgId = body.u8();
  const shortMessage = body.octets(body.u8());
  return {
    command, commandStatus, sequenceNumber, serviceType, sourceAddrTon, sourceAddrNpi, sourceAddr, destAddrTon, destAddrNpi,
    destinationAddr, esmClass, protocolId, priorityFlag, scheduleDeliveryTime, validityPeriod,
    registeredDelivery, replaceIfPresentFlag, dataCoding, smDefaultMsgId, shortMessage, tlvs: body.tlvs(),
  };
}

class BodyWriter {
  pos = PDU_HEADER_LENGTH;
  constructor(readonly buf: Buffer) {}

  u8(value: number): void {
    this.buf.writeUInt8(value, this.pos++);
  }
  cString(value: string): void {
    if (this.pos + value.length + 1 > this.buf.length) throw new RangeError('PDU too long');
    this.pos += this.buf.write(value, this.pos, 'latin1');
    this.buf[this.pos++] = 0;
  }
  octets(value: Buffer): void {
    if (this.pos + value.length > this.buf.length) throw new RangeError('PDU too long');
    this.pos += value.copy(this.buf, this.pos);
  }
  tlvs(tlvs: readonly Tlv[]): void {
    for (const { tag, value } of tlvs) {
      this.buf.writeUInt16BE(tag, this.pos);
      this.buf.writeUInt16BE(value.length, this.pos + 2);
      this.pos += 4;
      this.octets(value);
    }
  }
}

// Encoding is synchronous, so one scratch buffer serves every call; the result is copied out.
const scratch = Buffer.allocUnsafe(MAX_PDU_LENGTH);

export function encodePdu(pdu: Pdu): Buffer {
  const out = new BodyWriter(scratch);
  // Error responses carry no body (section 4.1 and following).
  const bodyless = pdu.command.endsWith('_resp') && pdu.commandStatus !== 0;
  if (!bodyless) writeBody(pdu, out);
  const commandId = pdu.command === 'unknown' ? pdu.commandId : CommandId[pdu.command];
  scratch.writeUInt32BE(out.pos, 0);
  scratch.writeUInt32BE(commandId, 4);
  scratch.writeUInt32BE(pdu.commandStatus, 8);
  scratch.writeUInt32BE(pdu.sequenceNumber, 12);
  return Buffer.from(scratch.subarray(0, out.pos));
}

function writeBody(pdu: Pdu, out: BodyWriter): void {
  switch (pdu.command) {
    case 'bind_transmitter':
    case 'bind_receiver':
    case 'bind_transceiver':
      out.cString(pdu.systemId);
      out.cString(pdu.password);
      out.cString(pdu.systemType);
      out.u8(pdu.interfaceVersion);
      out.u8(pdu.addrTon);
      out.u8(pdu.addrNpi);
      out.cString(pdu.addressRange);
      return;
    case 'bind_transmitter_resp':
    case 'bind_receiver_resp':
    case 'bind_transceiver_resp':
      out.cString(pdu.systemId);
      out.tlvs(pdu.tlvs);
      return;
    case 'submit_sm':
    case 'deliver_sm':
      if (pdu.shortMessage.length > 254) throw new RangeError('short_message longer than 254 octets: use message_payload');
      out.cString(pdu.serviceType);
      out.u8(pdu.sourceAddrTon);
      out.u8(pdu.sourceAddrNpi);
      out.cString(pdu.sourceAddr);
      out.u8(pdu.destAddrTon);
      out.u8(pdu.destAddrNpi);
      out.cString(pdu.destinationAddr);
      out.u8(pdu.esmClass);
      out.u8(pdu.protocolId);
      out.u8(pdu.priorityFlag);
      out.cString(pdu.scheduleDeliveryTime);
      out.cString(pdu.validityPeriod);
      out.u8(pdu.registeredDelivery);
      out.u8(pdu.replaceIfPresentFlag);
      out.u8(pdu.dataCoding);
      out.u8(pdu.smDefaultMsgId);
      out.u8(pdu.shortMessage.length);
      out.octets(pdu.shortMessage);
      out.tlvs(pdu.tlvs);
      return;
    case 'submit_sm_resp':
    case 'deliver_sm_resp':
      out.cString(pdu.messageId);
      return;
    case 'enquire_link':
    case 'enquire_link_resp':
    case 'unbind':
    case 'unbind_resp':
    case 'generic_nack':
      return;
    case 'unknown':
      out.octets(pdu.body);
      return;
  }
}
