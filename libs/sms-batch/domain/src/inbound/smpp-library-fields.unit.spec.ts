import { inboundPduFromSmppFields } from './smpp-library-fields';
import { deliverSm, roundTrip, utf16be } from './inbound-wire.fixtures';

// The library decodes the user data it parses; these check that the octets are written back.
const shortMessageAfterLibrary = (dataCoding: number, octets: readonly number[], esmClass = 0): number[] =>
  Array.from(deliverSm({ esm_class: esmClass, data_coding: dataCoding, short_message: Buffer.from(octets) }).shortMessage);
const every = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('inboundPduFromSmppFields', () => {
  it('takes the addresses, esm_class, data_coding and SAR TLVs', () => {
    const fields = roundTrip('deliver_sm', {
      source_addr: '447700900123',
      destination_addr: '60123',
      esm_class: 0,
      data_coding: 3,
      short_message: Buffer.from('x'),
      sar_msg_ref_num: 513,
      sar_total_segments: 3,
      sar_segment_seqnum: 2,
    });
    expect(inboundPduFromSmppFields(fields)).toMatchObject({
      sourceAddr: '447700900123',
      destinationAddr: '60123',
      esmClass: 0,
      dataCoding: 3,
      sarMsgRefNum: 513,
      sarTotalSegments: 3,
      sarSegmentSeqnum: 2,
      messagePayload: null,
    });
  });

  it('writes back every GSM-7 septet and escape sequence, a lone trailing escape included', () => {
    const septets = [...every(0x00, 0x7f), 0x1b, 0x65, 0x1b, 0x2f, 0x1b, 0x41, 0x1b, 0x1b, 0x1b];
    expect(shortMessageAfterLibrary(0, septets)).toEqual(septets);
  });

  it('writes back IA5 octets, which the library reads with its GSM table', () => {
    const ascii = every(0x00, 0x7f);
    expect(shortMessageAfterLibrary(1, ascii)).toEqual(ascii);
  });

  it('writes back every Latin-1 octet', () => {
    // sm_length is one octet: two messages.
    expect(shortMessageAfterLibrary(3, every(0x00, 0x7f))).toEqual(every(0x00, 0x7f));
    expect(shortMessageAfterLibrary(3, every(0x80, 0xff))).toEqual(every(0x80, 0xff));
  });

  it('writes back UTF-16BE, a lone surrogate at either end included', () => {
    const octets = utf16be([0xde00, 0x0041, 0x20ac, 0xd83d]);
    expect(shortMessageAfterLibrary(8, octets)).toEqual(octets);
  });

  it('takes binary and unknown codings as the octets they are', () => {
    expect(shortMessageAfterLibrary(4, [0x00, 0xff, 0x1b])).toEqual([0x00, 0xff, 0x1b]);
    expect(shortMessageAfterLibrary(6, [0xb0, 0xb1])).toEqual([0xb0, 0xb1]);
  });

  it('puts the UDH back in front, its length octet included', () => {
    const udh = [0x0b, 0x05, 0x04, 0x0b, 0x84, 0x23, 0xf0, 0x00, 0x03, 0x07, 0x02, 0x02];
    expect(shortMessageAfterLibrary(0, [...udh, 0x48, 0x1b], 0x40)).toEqual([...udh, 0x48, 0x1b]);
  });

  it('loses what the library drops: a GSM-7 octet above 0x7F, a leading U+FEFF and an odd last UCS-2 octet', () => {
    expect(shortMessageAfterLibrary(0, [0x41, 0x80])).toEqual([0x41, 0x20]);
    expect(shortMessageAfterLibrary(8, [0xfe, 0xff, 0x00, 0x41, 0x42])).toEqual([0x00, 0x41]);
  });

  it('takes plain octets and missing fields as they come', () => {
    expect(inboundPduFromSmppFields({ short_message: Buffer.from([1, 2]) })).toEqual({
      sourceAddr: '',
      sourceAddrTon: 0,
      destinationAddr: '',
      esmClass: 0,
      dataCoding: 0,
      shortMessage: Buffer.from([1, 2]),
      messagePayload: null,
      sarMsgRefNum: null,
      sarTotalSegments: null,
      sarSegmentSeqnum: null,
    });
  });
});
