// Test fixtures: PDUs as the carrier writes them, read back through the `smpp` library's own
// parser, so that the decoder is tested from wire octets through the library's field shapes.
import { PDU } from 'smpp/lib/pdu';
import { inboundPduFromSmppFields } from './smpp-library-fields';
import { parseInboundPdu, type InboundPart, type InboundPdu } from './inbound-pdu';

/** A PDU's fields after the library parsed its octets. */
export function readFromWire(wire: Buffer): Readonly<Record<string, unknown>> {
  return new PDU(wire);
}

/** Writes a PDU with the library, then reads its octets back. */
export function roundTrip(command: 'deliver_sm' | 'data_sm', fields: Record<string, unknown>): Readonly<Record<string, unknown>> {
  return readFromWire(new PDU(command, { sequence_number: 7, ...fields }).toBuffer());
}

/** A mobile-originated deliver_sm from 447700900123 to the short code 60123. */
export function deliverSm(fields: Record<string, unknown>): InboundPdu {
  return inboundPduFromSmppFields(
    roundTrip('deliver_sm', { source_addr_ton: 1, source_addr_npi: 1, source_addr: '447700900123', destination_addr: '60123', ...fields }),
  );
}

/** A concatenated part with the UDH `05 00 03 ref total seq` in front of its user data. */
export function udh8Part(dataCoding: number, reference: number, total: number, sequence: number, body: readonly number[]): InboundPart {
  return parseInboundPdu(
    deliverSm({ esm_class: 0x40, data_coding: dataCoding, short_message: Buffer.from([0x05, 0x00, 0x03, reference, total, sequence, ...body]) }),
  );
}

/** UTF-16BE code units as octets; a lone surrogate stays as it is. */
export function utf16be(units: readonly number[]): number[] {
  return units.flatMap((unit) => [unit >> 8, unit & 0xff]);
}

/** The code units of a string (an emoji is two). */
export function unitsOf(text: string): number[] {
  return Array.from({ length: text.length }, (_, i) => text.charCodeAt(i));
}

/** A hand-written PDU: the header's command_length is counted, the rest is given as hex. */
export function pduFromHex(commandIdStatusSequenceAndBody: string): Buffer {
  const rest = Buffer.from(commandIdStatusSequenceAndBody.replace(/\s+/g, ''), 'hex');
  const length = Buffer.alloc(4);
  length.writeUInt32BE(rest.length + 4);
  return Buffer.concat([length, rest]);
}
