import { isDeliveryReceipt, parseInboundPdu, type InboundPart } from './inbound-pdu';
import { inboundPduFromSmppFields } from './smpp-library-fields';
import { deliverSm, pduFromHex, readFromWire, roundTrip } from './inbound-wire.fixtures';

const userDataOf = (part: InboundPart): number[] => Array.from(Buffer.from(part.userData, 'base64'));

describe('isDeliveryReceipt', () => {
  it('is false for a message from a handset (message type 0), with or without UDHI and reply path', () => {
    expect([0x00, 0x40, 0x80, 0xc0, 0x03].map(isDeliveryReceipt)).toEqual([false, false, false, false, false]);
  });

  it('is true for a receipt, an SME or manual acknowledgement, an abort and an intermediate notification', () => {
    expect([0x04, 0x08, 0x10, 0x18, 0x20, 0x44].map(isDeliveryReceipt)).toEqual([true, true, true, true, true, true]);
  });
});

describe('parseInboundPdu', () => {
  it('reads a hand-written SMPP 3.4 deliver_sm: a GSM-7 part with an 8-bit concatenation UDH', () => {
    const wire = pduFromHex(`
      00000005 00000000 00000001
      00
      01 01 343437373030393030313233 00
      00 00 3630313233 00
      40 00 00 00 00 00 00 00 00
      0e
      05 00 03 2a 02 01 50 72 69 63 65 20 35 1b`);
    expect(parseInboundPdu(inboundPduFromSmppFields(readFromWire(wire)))).toEqual({
      source: '447700900123',
      destination: '60123',
      encoding: 'GSM7',
      userData: Buffer.from([0x50, 0x72, 0x69, 0x63, 0x65, 0x20, 0x35, 0x1b]).toString('base64'),
      concatenation: { scheme: 'udh8', reference: 0x2a, total: 2, sequence: 1 },
    });
  });

  it('reads a single-part message without UDH', () => {
    const part = parseInboundPdu(deliverSm({ data_coding: 0, short_message: Buffer.from('STOP') }));
    expect(part).toMatchObject({ encoding: 'GSM7', concatenation: null });
    expect(userDataOf(part)).toEqual([0x53, 0x54, 0x4f, 0x50]);
  });

  it('reads a 16-bit reference concatenation element', () => {
    const part = parseInboundPdu(
      deliverSm({ esm_class: 0x40, data_coding: 8, short_message: Buffer.from([0x06, 0x08, 0x04, 0x12, 0x34, 0x03, 0x02, 0x00, 0x41]) }),
    );
    expect(part.concatenation).toEqual({ scheme: 'udh16', reference: 0x1234, total: 3, sequence: 2 });
    expect(userDataOf(part)).toEqual([0x00, 0x41]);
  });

  it('skips the other information elements of a UDH (here application ports)', () => {
    const udh = [0x0b, 0x05, 0x04, 0x0b, 0x84, 0x23, 0xf0, 0x00, 0x03, 0x07, 0x02, 0x02];
    const part = parseInboundPdu(deliverSm({ esm_class: 0x40, data_coding: 4, short_message: Buffer.from([...udh, 0xca, 0xfe]) }));
    expect(part).toMatchObject({ encoding: 'BINARY', concatenation: { scheme: 'udh8', reference: 7, total: 2, sequence: 2 } });
    expect(userDataOf(part)).toEqual([0xca, 0xfe]);
  });

  it('reads the SAR TLVs when there is no UDH', () => {
    const part = parseInboundPdu(
      deliverSm({ data_coding: 3, short_message: Buffer.from('caf\xe9', 'latin1'), sar_msg_ref_num: 300, sar_total_segments: 2, sar_segment_seqnum: 2 }),
    );
    expect(part).toMatchObject({ encoding: 'LATIN1', concatenation: { scheme: 'sar', reference: 300, total: 2, sequence: 2 } });
    expect(userDataOf(part)).toEqual([0x63, 0x61, 0x66, 0xe9]);
  });

  it('reads message_payload when short_message is empty, UDH included', () => {
    const payload = Buffer.from([0x05, 0x00, 0x03, 0x09, 0x02, 0x01, 0xd8, 0x3d]);
    const part = parseInboundPdu(deliverSm({ esm_class: 0x40, data_coding: 8, short_message: Buffer.alloc(0), message_payload: payload }));
    expect(part.concatenation).toEqual({ scheme: 'udh8', reference: 9, total: 2, sequence: 1 });
    expect(userDataOf(part)).toEqual([0xd8, 0x3d]);
  });

  it('reads a data_sm, whose user data is always in message_payload', () => {
    const fields = roundTrip('data_sm', { source_addr: '447700900123', destination_addr: '60123', data_coding: 8, message_payload: Buffer.from([0x00, 0x59]) });
    const part = parseInboundPdu(inboundPduFromSmppFields(fields));
    expect(part).toMatchObject({ source: '447700900123', destination: '60123', encoding: 'UCS2', concatenation: null });
    expect(userDataOf(part)).toEqual([0x00, 0x59]);
  });

  it.each([
    ['a total of 0', [0x05, 0x00, 0x03, 0x01, 0x00, 0x01]],
    ['a sequence of 0', [0x05, 0x00, 0x03, 0x01, 0x02, 0x00]],
    ['a sequence past the total', [0x05, 0x00, 0x03, 0x01, 0x02, 0x03]],
    ['a total of 1', [0x05, 0x00, 0x03, 0x01, 0x01, 0x01]],
  ])('makes a part with %s a message on its own, its header removed', (_, udh) => {
    const part = parseInboundPdu(deliverSm({ esm_class: 0x40, data_coding: 0, short_message: Buffer.from([...udh, 0x48, 0x69]) }));
    expect(part.concatenation).toBeNull();
    expect(userDataOf(part)).toEqual([0x48, 0x69]);
  });

  it('ignores SAR TLVs that cannot be placed', () => {
    const part = parseInboundPdu(deliverSm({ short_message: Buffer.from('Hi'), sar_msg_ref_num: 1, sar_total_segments: 2, sar_segment_seqnum: 5 }));
    expect(part.concatenation).toBeNull();
  });

  it('keeps the octets as they are, header and all, when the UDH runs past the data', () => {
    const pdu = { sourceAddr: '447700900123', destinationAddr: '60123', esmClass: 0x40, dataCoding: 0 };
    const headerLongerThanData = Uint8Array.of(0x09, 0x00, 0x03, 0x01, 0x02, 0x01);
    const elementLongerThanHeader = Uint8Array.of(0x03, 0x00, 0x03, 0x01, 0x41);
    expect(parseInboundPdu({ ...pdu, shortMessage: headerLongerThanData })).toMatchObject({ concatenation: null, userData: 'CQADAQIB' });
    expect(parseInboundPdu({ ...pdu, shortMessage: elementLongerThanHeader })).toMatchObject({ concatenation: null, userData: 'AwADAUE=' });
  });

  it('reads an empty message as empty user data', () => {
    expect(parseInboundPdu(deliverSm({ short_message: Buffer.alloc(0) }))).toMatchObject({ userData: '', concatenation: null });
  });
});
