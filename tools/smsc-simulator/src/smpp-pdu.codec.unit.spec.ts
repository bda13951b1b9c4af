import { decodePdu, encodePdu } from './smpp-pdu.codec';
import { PduDecodeError, type Pdu, type ShortMessagePdu } from './smpp-pdu.types';
import { cStringTlv, findTlv, tlvInteger, u8Tlv } from './smpp-tlv';
import { CommandStatus, TlvTag } from './smpp.constants';

const submit: ShortMessagePdu = {
  command: 'submit_sm', commandStatus: 0, sequenceNumber: 7,
  serviceType: 'CMT', sourceAddrTon: 5, sourceAddrNpi: 0, sourceAddr: 'ACME',
  destAddrTon: 1, destAddrNpi: 1, destinationAddr: '447700900123',
  esmClass: 0x40, protocolId: 0, priorityFlag: 1, scheduleDeliveryTime: '', validityPeriod: '000001000000000R',
  registeredDelivery: 1, replaceIfPresentFlag: 0, dataCoding: 8, smDefaultMsgId: 0,
  shortMessage: Buffer.from([0x05, 0x00, 0x03, 0x2a, 0x02, 0x01, 0x00, 0x48]),
  tlvs: [u8Tlv(TlvTag.sar_total_segments, 2), { tag: 0x1403, value: Buffer.from('vendor') }],
};

const roundTrips: Pdu[] = [
  { command: 'bind_transceiver', commandStatus: 0, sequenceNumber: 1, systemId: 'seed', password: 'secret', systemType: 'VMA', interfaceVersion: 0x34, addrTon: 1, addrNpi: 1, addressRange: '^44' },
  { command: 'bind_transmitter', commandStatus: 0, sequenceNumber: 2, systemId: 'a', password: '', systemType: '', interfaceVersion: 0x33, addrTon: 0, addrNpi: 0, addressRange: '' },
  { command: 'bind_receiver', commandStatus: 0, sequenceNumber: 3, systemId: 'b', password: 'p', systemType: '', interfaceVersion: 0x34, addrTon: 0, addrNpi: 0, addressRange: '' },
  { command: 'bind_transceiver_resp', commandStatus: 0, sequenceNumber: 1, systemId: 'SEEDSMSC', tlvs: [u8Tlv(TlvTag.sc_interface_version, 0x34)] },
  { command: 'bind_receiver_resp', commandStatus: CommandStatus.ESME_RBINDFAIL, sequenceNumber: 3, systemId: '', tlvs: [] },
  submit,
  { ...submit, command: 'deliver_sm', esmClass: 4, shortMessage: Buffer.from('id:1 stat:DELIVRD'), tlvs: [cStringTlv(TlvTag.receipted_message_id, '1a2b'), u8Tlv(TlvTag.message_state, 2)] },
  { ...submit, shortMessage: Buffer.alloc(0), tlvs: [{ tag: TlvTag.message_payload, value: Buffer.alloc(1000, 0x41) }] },
  { command: 'submit_sm_resp', commandStatus: 0, sequenceNumber: 7, messageId: '0a1b2c3d' },
  { command: 'submit_sm_resp', commandStatus: CommandStatus.ESME_RTHROTTLED, sequenceNumber: 8, messageId: '' },
  { command: 'deliver_sm_resp', commandStatus: 0, sequenceNumber: 9, messageId: '' },
  { command: 'enquire_link', commandStatus: 0, sequenceNumber: 10 },
  { command: 'enquire_link_resp', commandStatus: 0, sequenceNumber: 10 },
  { command: 'unbind', commandStatus: 0, sequenceNumber: 11 },
  { command: 'unbind_resp', commandStatus: 0, sequenceNumber: 11 },
  { command: 'generic_nack', commandStatus: CommandStatus.ESME_RINVCMDID, sequenceNumber: 12 },
  { command: 'unknown', commandId: 0x00000003, commandStatus: 0, sequenceNumber: 13, body: Buffer.from('query\0') },
];

describe('SMPP PDU codec', () => {
  it.each(roundTrips.map((pdu) => [pdu.command, pdu] as const))('round trips %s', (_name, pdu) => {
    const bytes = encodePdu(pdu);
    expect(bytes.readUInt32BE(0)).toBe(bytes.length);
    expect(decodePdu(bytes)).toEqual(pdu);
  });

  it('lays out the header and C-octet strings as the specification does', () => {
    const bytes = encodePdu({ command: 'bind_transceiver', commandStatus: 0, sequenceNumber: 0x01020304, systemId: 'ab', password: 'c', systemType: '', interfaceVersion: 0x34, addrTon: 1, addrNpi: 2, addressRange: '' });
    expect(bytes.toString('hex')).toBe(
      '0000001a' + '00000009' + '00000000' + '01020304' + '616200' + '6300' + '00' + '34' + '01' + '02' + '00',
    );
  });

  it('sends error responses without a body', () => {
    const bytes = encodePdu({ command: 'submit_sm_resp', commandStatus: CommandStatus.ESME_RINVDSTADR, sequenceNumber: 5, messageId: 'ignored' });
    expect(bytes.length).toBe(16);
    expect(bytes.readUInt32BE(8)).toBe(0x0b);
  });

  it('writes short_message with its length octet and TLVs as tag, length, value', () => {
    const bytes = encodePdu({ ...submit, shortMessage: Buffer.from('Hi'), tlvs: [u8Tlv(TlvTag.message_state, 2)] });
    expect(bytes.subarray(-8).toString('hex')).toBe('02' + '4869' + '0427' + '0001' + '02');
  });

  it('reads TLV values of 1, 2 and 4 octets as integers', () => {
    expect(tlvInteger(Buffer.of(7))).toBe(7);
    expect(tlvInteger(Buffer.of(1, 2))).toBe(0x0102);
    expect(tlvInteger(Buffer.of(0, 0, 1, 0))).toBe(256);
    expect(tlvInteger(Buffer.of(1, 2, 3))).toBeUndefined();
    expect(findTlv(submit.tlvs, 0x1403)?.toString()).toBe('vendor');
    expect(findTlv(submit.tlvs, 0x9999)).toBeUndefined();
  });

  it('decodes an error bind response that omits its body', () => {
    const bytes = Buffer.from('00000010800000090000000d00000001', 'hex');
    expect(decodePdu(bytes)).toEqual({ command: 'bind_transceiver_resp', commandStatus: 0x0d, sequenceNumber: 1, systemId: '', tlvs: [] });
  });

  it('does not keep a reference to the bytes it decoded', () => {
    const bytes = encodePdu(submit);
    const decoded = decodePdu(bytes) as ShortMessagePdu;
    bytes.fill(0);
    expect(decoded.shortMessage).toEqual(submit.shortMessage);
  });

  describe('rejects malformed PDUs with the status a generic_nack should carry', () => {
    const withLength = (hex: string) => {
      const bytes = Buffer.from(hex, 'hex');
      bytes.writeUInt32BE(bytes.length, 0);
      return bytes;
    };
    const statusOf = (bytes: Buffer) => {
      try {
        decodePdu(bytes);
      } catch (error) {
        return error instanceof PduDecodeError ? error.status : 'other error';
      }
      return 'decoded';
    };

    it('a C-octet string without terminator', () => {
      expect(statusOf(withLength('00000000' + '00000009' + '00000000' + '00000001' + '7365656400' + '736563'))).toBe(CommandStatus.ESME_RINVCMDLEN);
    });
    it('a command_length that differs from the bytes', () => {
      const bytes = encodePdu({ command: 'enquire_link', commandStatus: 0, sequenceNumber: 1 });
      bytes.writeUInt32BE(20, 0);
      expect(statusOf(bytes)).toBe(CommandStatus.ESME_RINVCMDLEN);
    });
    it('an sm_length past the end', () => {
      const bytes = encodePdu({ ...submit, shortMessage: Buffer.from('abc'), tlvs: [] });
      bytes[bytes.length - 4] = 200;
      expect(statusOf(bytes)).toBe(CommandStatus.ESME_RINVMSGLEN);
    });
    it('a TLV longer than what is left', () => {
      const bytes = encodePdu({ ...submit, tlvs: [u8Tlv(TlvTag.message_state, 2)] });
      bytes.writeUInt16BE(9, bytes.length - 3);
      expect(statusOf(bytes)).toBe(CommandStatus.ESME_RINVTLVSTREAM);
    });
    it('a truncated TLV header', () => {
      const bytes = encodePdu({ ...submit, tlvs: [] });
      expect(statusOf(withLength(bytes.toString('hex') + '0427'))).toBe(CommandStatus.ESME_RINVTLVSTREAM);
    });
  });
});
