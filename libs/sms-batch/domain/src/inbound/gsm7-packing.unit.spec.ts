import { unpackGsm7Septets } from './gsm7-packing';
import { parseInboundPdu } from './inbound-pdu';
import { joinParts } from './inbound-parts';

const septetsOf = (octets: number[], headerOctets?: number): number[] => Array.from(unpackGsm7Septets(Uint8Array.from(octets), headerOctets));

describe('unpackGsm7Septets', () => {
  it('unpacks the 23.038 example "hellohello"', () => {
    expect(septetsOf([0xe8, 0x32, 0x9b, 0xfd, 0x46, 0x97, 0xd9, 0xec, 0x37])).toEqual(Array.from(Buffer.from('hellohello')));
  });

  it('skips the fill bit after a 6-octet UDH, so the text starts on a septet boundary', () => {
    expect(septetsOf([0x90, 0x69], 6)).toEqual([0x48, 0x69]);
  });

  it('drops a CR that fills seven spare bits, and keeps one that is text', () => {
    // "1234567" leaves seven spare bits in its seven octets, which 23.038 has the sender fill with a CR.
    expect(septetsOf([0x31, 0xd9, 0x8c, 0x56, 0xb3, 0xdd, 0x1a])).toEqual(Array.from(Buffer.from('1234567')));
    expect(septetsOf([0x0d])).toEqual([0x0d]);
  });

  it('reads seven zero spare bits as the "@" they are by 23.038 (senders must pad with a CR)', () => {
    expect(septetsOf([0x31, 0xd9, 0x8c, 0x56, 0xb3, 0xdd, 0x00])).toEqual([...Array.from(Buffer.from('1234567')), 0x00]);
  });

  it('reads nothing from no octets', () => {
    expect(septetsOf([])).toEqual([]);
    expect(septetsOf([], 6)).toEqual([]);
  });
});

describe('parseInboundPdu with gsm7Packed', () => {
  const pdu = { sourceAddr: '447700900123', destinationAddr: '60123', esmClass: 0x40, dataCoding: 0 };

  it('stores packed parts unpacked, so an escape split between them still reads as €', () => {
    // "5" ESC | 0x65 in two packed parts behind `05 00 03 01 02 seq` (one fill bit each).
    const first = parseInboundPdu({ ...pdu, shortMessage: Uint8Array.of(0x05, 0x00, 0x03, 0x01, 0x02, 0x01, 0x6a, 0x1b) }, { gsm7Packed: true });
    const second = parseInboundPdu({ ...pdu, shortMessage: Uint8Array.of(0x05, 0x00, 0x03, 0x01, 0x02, 0x02, 0xca) }, { gsm7Packed: true });
    expect(joinParts([second, first])).toMatchObject({ text: '5€', incomplete: false });
  });

  it('leaves UCS-2 and unflagged GSM-7 alone', () => {
    const octets = Uint8Array.of(0x48, 0x69);
    expect(parseInboundPdu({ ...pdu, esmClass: 0, dataCoding: 8, shortMessage: octets }, { gsm7Packed: true }).userData).toBe('SGk=');
    expect(parseInboundPdu({ ...pdu, esmClass: 0, shortMessage: octets }).userData).toBe('SGk=');
  });
});
