import { parseInboundPdu, type InboundPart } from './inbound-pdu';
import { INBOUND_PART_MAX_WAIT_MS, isComplete, joinParts, siblingKey } from './inbound-parts';
import { deliverSm, udh8Part, unitsOf, utf16be } from './inbound-wire.fixtures';

const GSM7 = 0x00;
const UCS2 = 0x08;

// "Hi 😀 there, ok?" in three UCS-2 parts, the emoji's surrogate pair split between parts 1 and 2.
const [HIGH, LOW] = unitsOf('😀');
const emojiPart1 = udh8Part(UCS2, 0x5c, 3, 1, utf16be([...unitsOf('Hi '), HIGH ?? 0]));
const emojiPart2 = udh8Part(UCS2, 0x5c, 3, 2, utf16be([LOW ?? 0, ...unitsOf(' there')]));
const emojiPart3 = udh8Part(UCS2, 0x5c, 3, 3, utf16be(unitsOf(', ok?')));

// "Price 5€ each" in two GSM-7 parts, the escape 0x1B ending part 1 and its 0x65 starting part 2.
const euroPart1 = udh8Part(GSM7, 0x2a, 2, 1, [0x50, 0x72, 0x69, 0x63, 0x65, 0x20, 0x35, 0x1b]);
const euroPart2 = udh8Part(GSM7, 0x2a, 2, 2, [0x65, 0x20, 0x65, 0x61, 0x63, 0x68]);

describe('joinParts', () => {
  it('joins a 3-part UCS-2 message whose emoji straddles two parts, the parts out of order', () => {
    expect(joinParts([emojiPart3, emojiPart1, emojiPart2])).toEqual({ text: 'Hi 😀 there, ok?', encoding: 'UCS2', smsCount: 3, incomplete: false });
  });

  it('joins a GSM-7 escape split between two parts into one €', () => {
    expect(joinParts([euroPart2, euroPart1])).toEqual({ text: 'Price 5€ each', encoding: 'GSM7', smsCount: 2, incomplete: false });
  });

  it('ignores a part received twice, keeping the first', () => {
    const resent = { ...emojiPart2, userData: Buffer.from(utf16be(unitsOf('XX'))).toString('base64') };
    expect(joinParts([emojiPart1, emojiPart2, emojiPart1, resent, emojiPart3])).toMatchObject({ text: 'Hi 😀 there, ok?', smsCount: 3 });
  });

  it('leaves a missing part out, marked incomplete, never pairing the halves on either side of it', () => {
    expect(joinParts([emojiPart3, emojiPart1])).toEqual({ text: 'Hi \uFFFD, ok?', encoding: 'UCS2', smsCount: 2, incomplete: true });
    expect(joinParts([emojiPart2])).toEqual({ text: '\uFFFD there', encoding: 'UCS2', smsCount: 1, incomplete: true });
    expect(joinParts([euroPart1])).toMatchObject({ text: 'Price 5', incomplete: true });
    expect(joinParts([euroPart2])).toMatchObject({ text: 'e each', incomplete: true });
  });

  it('reads a single-part message', () => {
    const part = parseInboundPdu(deliverSm({ data_coding: GSM7, short_message: Buffer.from([0x1b, 0x65, 0x35]) }));
    expect(joinParts([part])).toEqual({ text: '€5', encoding: 'GSM7', smsCount: 1, incomplete: false });
  });

  it('joins SAR parts, the user data of each decoded together', () => {
    const sar = (sequence: number, octets: number[]): InboundPart =>
      parseInboundPdu(deliverSm({ data_coding: UCS2, short_message: Buffer.from(octets), sar_msg_ref_num: 4242, sar_total_segments: 2, sar_segment_seqnum: sequence }));
    const text = utf16be(unitsOf('Ж🎉!'));
    expect(joinParts([sar(2, text.slice(4)), sar(1, text.slice(0, 4))])).toMatchObject({ text: 'Ж🎉!', smsCount: 2, incomplete: false });
  });

  it('decodes each part in its own encoding when siblings disagree', () => {
    const ucs2 = udh8Part(UCS2, 1, 2, 1, utf16be(unitsOf('Ж')));
    const gsm = udh8Part(GSM7, 1, 2, 2, [0x00]);
    expect(joinParts([gsm, ucs2])).toEqual({ text: 'Ж@', encoding: 'UCS2', smsCount: 2, incomplete: false });
  });

  it('throws on no parts, a bug in the caller', () => {
    expect(() => joinParts([])).toThrow(RangeError);
  });
});

describe('isComplete', () => {
  it('holds when every sequence from 1 to the total is there, in any order, duplicates or not', () => {
    expect(isComplete([emojiPart2, emojiPart3, emojiPart1])).toBe(true);
    expect(isComplete([emojiPart2, emojiPart3, emojiPart2])).toBe(false);
    expect(isComplete([euroPart1, euroPart1])).toBe(false);
  });

  it('holds for a single-part message and not for no parts', () => {
    expect(isComplete([parseInboundPdu(deliverSm({ short_message: Buffer.from('Hi') }))])).toBe(true);
    expect(isComplete([])).toBe(false);
  });
});

describe('siblingKey', () => {
  it('is shared by the parts of one message', () => {
    expect(siblingKey(emojiPart1)).toBe(siblingKey(emojiPart3));
    expect(siblingKey(emojiPart1)).not.toBeNull();
  });

  it('differs by reference, total, scheme, source and destination', () => {
    const key = siblingKey(euroPart1);
    expect(siblingKey(udh8Part(GSM7, 0x2b, 2, 1, []))).not.toBe(key);
    expect(siblingKey(udh8Part(GSM7, 0x2a, 3, 1, []))).not.toBe(key);
    expect(siblingKey({ ...euroPart1, source: '447700900999' })).not.toBe(key);
    expect(siblingKey({ ...euroPart1, destination: '60124' })).not.toBe(key);
    expect(siblingKey({ ...euroPart1, concatenation: { scheme: 'sar', reference: 0x2a, total: 2, sequence: 1 } })).not.toBe(key);
  });

  it('is null for a single-part message', () => {
    expect(siblingKey(parseInboundPdu(deliverSm({ short_message: Buffer.from('Hi') })))).toBeNull();
  });

  it('cannot be forged by an address holding the separator', () => {
    const a = { ...euroPart1, source: 'A","B', destination: 'C' };
    const b = { ...euroPart1, source: 'A', destination: 'B","C' };
    expect(siblingKey(a)).not.toBe(siblingKey(b));
  });
});

describe('INBOUND_PART_MAX_WAIT_MS', () => {
  it('is ten minutes', () => {
    expect(INBOUND_PART_MAX_WAIT_MS).toBe(600_000);
  });
});

describe('a part as stored', () => {
  it('survives JSON', () => {
    expect(JSON.parse(JSON.stringify(emojiPart1))).toEqual(emojiPart1);
  });
});
