import { readUserData } from './concatenation';
import { buildParts } from './inbound-deliver-sm';
import { defaultEncoding, encodeInboundText, partCapacity, splitEvenly, splitNaturally, InboundTextError } from './inbound-segmentation';
import { decodeText } from './sms-text.codec';

const join = (parts: Buffer[]) => Buffer.concat(parts);

describe('choosing the encoding', () => {
  it('takes GSM-7 when every character is in the alphabet or its extension table, UCS-2 otherwise', () => {
    expect(defaultEncoding('STOP')).toBe('gsm7');
    expect(defaultEncoding('Price 5€ {a|b} ~^ @£?')).toBe('gsm7');
    expect(defaultEncoding('Ça va? 😀')).toBe('ucs2');
    expect(defaultEncoding('ç')).toBe('ucs2'); // only the capital Ç is in the table
  });

  it('refuses characters the asked encoding lacks, naming them', () => {
    expect(() => encodeInboundText('hi 😀 日', 'gsm7')).toThrow(new InboundTextError('not in the GSM 7-bit alphabet: 😀 日'));
    expect(() => encodeInboundText('€', 'latin1')).toThrow(InboundTextError);
    expect(encodeInboundText('café', 'latin1').toString('hex')).toBe('636166e9');
  });

  it('writes GSM-7 one septet per octet with escapes, UCS-2 big endian with surrogate pairs', () => {
    expect(encodeInboundText('@€', 'gsm7').toString('hex')).toBe('001b65');
    expect(encodeInboundText('a😀', 'ucs2').toString('hex')).toBe('0061d83dde00');
  });
});

describe('the split a phone makes', () => {
  it('keeps 160 septets, 140 Latin-1 octets or 70 UCS-2 characters in one part', () => {
    expect(splitNaturally(encodeInboundText('a'.repeat(160), 'gsm7'), 'gsm7', 'udh8')).toHaveLength(1);
    expect(splitNaturally(encodeInboundText('a'.repeat(140), 'latin1'), 'latin1', 'udh8')).toHaveLength(1);
    expect(splitNaturally(encodeInboundText('ж'.repeat(70), 'ucs2'), 'ucs2', 'udh8')).toHaveLength(1);
  });

  it('cuts GSM-7 into 153 septets beside an 8-bit-reference UDH, 152 beside a 16-bit one', () => {
    const bytes = encodeInboundText('a'.repeat(161), 'gsm7');
    expect(splitNaturally(bytes, 'gsm7', 'udh8').map((p) => p.length)).toEqual([153, 8]);
    expect(splitNaturally(bytes, 'gsm7', 'udh16').map((p) => p.length)).toEqual([152, 9]);
    expect(splitNaturally(bytes, 'gsm7', 'sar').map((p) => p.length)).toEqual([153, 8]);
  });

  it('never cuts an escape pair: it moves to the next part whole', () => {
    const bytes = encodeInboundText(`${'a'.repeat(152)}€${'b'.repeat(10)}`, 'gsm7');
    const parts = splitNaturally(bytes, 'gsm7', 'udh8');
    expect(parts.map((p) => p.length)).toEqual([152, 12]);
    expect(parts[1]?.subarray(0, 2).toString('hex')).toBe('1b65');
    expect(join(parts)).toEqual(bytes);
  });

  it('cuts UCS-2 into 67 characters (134 octets) a part and never cuts a surrogate pair', () => {
    const plain = splitNaturally(encodeInboundText('ж'.repeat(71), 'ucs2'), 'ucs2', 'udh8');
    expect(plain.map((p) => p.length)).toEqual([134, 8]);
    const text = `${'ж'.repeat(66)}😀${'ж'.repeat(10)}`;
    const parts = splitNaturally(encodeInboundText(text, 'ucs2'), 'ucs2', 'udh8');
    expect(parts.map((p) => p.length)).toEqual([132, 24]);
    expect(parts.map((p) => decodeText(8, p))).toEqual(['ж'.repeat(66), `😀${'ж'.repeat(10)}`]);
  });

  it('refuses a text that needs more than 255 parts', () => {
    expect(() => splitNaturally(encodeInboundText('a'.repeat(153 * 255 + 1), 'gsm7'), 'gsm7', 'udh8')).toThrow(InboundTextError);
  });
});

describe('a forced split ("parts": n)', () => {
  it('cuts the code units evenly, the first parts one longer, whatever the characters', () => {
    const bytes = encodeInboundText('ab😀cd', 'ucs2'); // 6 code units: a b D83D DE00 c d
    const parts = splitEvenly(bytes, 'ucs2', 'udh8', 2);
    expect(parts.map((p) => p.toString('hex'))).toEqual(['00610062d83d', 'de0000630064']);
    expect(splitEvenly(encodeInboundText('abcdefg', 'gsm7'), 'gsm7', 'udh8', 3).map((p) => p.toString())).toEqual(['abc', 'de', 'fg']);
  });

  it('can put an escape pair across a boundary', () => {
    const parts = splitEvenly(encodeInboundText('ab€d', 'gsm7'), 'gsm7', 'udh8', 2); // 61 62 1b | 65 64
    expect(parts.map((p) => p.toString('hex'))).toEqual(['61621b', '6564']);
  });

  it('refuses more parts than code units, or parts too long for their header', () => {
    expect(() => splitEvenly(encodeInboundText('ab', 'gsm7'), 'gsm7', 'udh8', 3)).toThrow(InboundTextError);
    expect(() => splitEvenly(encodeInboundText('a'.repeat(161), 'gsm7'), 'gsm7', 'udh8', 1)).toThrow(InboundTextError);
    expect(() => splitEvenly(encodeInboundText('a'.repeat(307), 'gsm7'), 'gsm7', 'udh8', 2)).toThrow(InboundTextError);
    expect(splitEvenly(encodeInboundText('a'.repeat(306), 'gsm7'), 'gsm7', 'udh8', 2)).toHaveLength(2);
  });
});

describe('part capacity', () => {
  it('matches what one SMS carries', () => {
    expect([partCapacity('gsm7', null), partCapacity('gsm7', 'udh8'), partCapacity('gsm7', 'udh16')]).toEqual([160, 153, 152]);
    expect([partCapacity('ucs2', null), partCapacity('ucs2', 'udh8'), partCapacity('ucs2', 'udh16')]).toEqual([140, 134, 132]);
    expect([partCapacity('latin1', null), partCapacity('latin1', 'udh8'), partCapacity('latin1', 'udh16')]).toEqual([140, 134, 133]);
  });
});

describe('the parts of a deliver_sm', () => {
  const payloads = [Buffer.from('ab'), Buffer.from('cd'), Buffer.from('e')];

  it('sends one part with no header at all', () => {
    expect(buildParts([Buffer.from('STOP')], 'udh8', 7)).toEqual([
      { number: 1, payload: Buffer.from('STOP'), udh: null, sar: null, esmClass: 0, shortMessage: Buffer.from('STOP'), tlvs: [] },
    ]);
  });

  it('writes UDH IEI 0x00 or 0x08 that the simulator reads back', () => {
    const udh8 = buildParts(payloads, 'udh8', 0x1ab);
    expect(udh8.map((p) => p.shortMessage.toString('hex'))).toEqual(['050003ab03016162', '050003ab03026364', '050003ab030365']);
    const udh16 = buildParts(payloads, 'udh16', 0x1234);
    expect(udh16[1]?.shortMessage.toString('hex')).toBe('06080412340302' + '6364');
    for (const part of [...udh8, ...udh16]) expect(part.esmClass).toBe(0x40);
    expect(readUserData(0x40, udh16[2]!.shortMessage, [])).toEqual({ payload: Buffer.from('e'), concatenation: { reference: 0x1234, total: 3, sequence: 3 } });
  });

  it('writes the SAR TLVs instead of a UDH', () => {
    const [first] = buildParts(payloads, 'sar', 0xbeef);
    expect(first?.esmClass).toBe(0);
    expect(first?.shortMessage).toEqual(Buffer.from('ab'));
    expect(first?.tlvs.map((t) => [t.tag, t.value.toString('hex')])).toEqual([[0x020c, 'beef'], [0x020e, '03'], [0x020f, '01']]);
    expect(readUserData(0, first!.shortMessage, first!.tlvs).concatenation).toEqual({ reference: 0xbeef, total: 3, sequence: 1 });
  });
});
