import { analyzeText } from './sms-text';
import { buildSubmitParts, concatReferenceFor, type SubmitSmMessage, type SubmitSmPart } from './smpp-submit';

const DEFAULT_SOURCE = 'SEED';
const message = (overrides: Partial<SubmitSmMessage> = {}): SubmitSmMessage => ({
  destination: '447400123456',
  source: 'ACME',
  text: 'Hello',
  encoding: 'GSM7',
  concatReference: 0x2a,
  ...overrides,
});
const bytes = (part: SubmitSmPart | undefined): number[] => Array.from(part?.shortMessage ?? []);
const udhOf = (part: SubmitSmPart | undefined): number[] => bytes(part).slice(0, 6);
const bodyOf = (part: SubmitSmPart | undefined): number[] => bytes(part).slice(6);
const ucs2Units = (octets: number[]): number[] =>
  octets.flatMap((octet, i) => (i % 2 === 0 ? [(octet << 8) | (octets[i + 1] ?? 0)] : []));

describe('buildSubmitParts', () => {
  describe('a single-part GSM7 message', () => {
    it('is one submit_sm without UDH, unpacked septets, data_coding 0, a receipt requested', () => {
      expect(buildSubmitParts(message(), DEFAULT_SOURCE)).toEqual([
        {
          sourceAddr: 'ACME',
          sourceAddrTon: 5,
          sourceAddrNpi: 0,
          destinationAddr: '447400123456',
          destAddrTon: 1,
          destAddrNpi: 1,
          esmClass: 0,
          dataCoding: 0,
          registeredDelivery: 1,
          shortMessage: Uint8Array.from([0x48, 0x65, 0x6c, 0x6c, 0x6f]),
        },
      ]);
    });

    it('maps GSM 03.38 characters, extension characters as the escape pair', () => {
      const [part] = buildSubmitParts(message({ text: '@£$è€[' }), DEFAULT_SOURCE);
      expect(bytes(part)).toEqual([0x00, 0x01, 0x02, 0x04, 0x1b, 0x65, 0x1b, 0x3c]);
    });

    it('sends 160 septets in one part', () => {
      const parts = buildSubmitParts(message({ text: 'a'.repeat(160) }), DEFAULT_SOURCE);
      expect(parts).toHaveLength(1);
      expect(parts[0]?.shortMessage).toHaveLength(160);
    });
  });

  describe('the addresses', () => {
    it.each([
      ['ACME Ltd', 'ACME Ltd', 5, 0],
      ['+447400123456', '447400123456', 1, 1],
      ['447400123456', '447400123456', 1, 1],
      ['12345', '12345', 3, 0],
    ])('source %j goes out as %j with TON %i / NPI %i', (source, sourceAddr, ton, npi) => {
      const [part] = buildSubmitParts(message({ source }), DEFAULT_SOURCE);
      expect(part).toMatchObject({ sourceAddr, sourceAddrTon: ton, sourceAddrNpi: npi });
    });

    it('uses the default source when the message has none, read by its own form', () => {
      expect(buildSubmitParts(message({ source: null }), DEFAULT_SOURCE)[0]).toMatchObject({ sourceAddr: 'SEED', sourceAddrTon: 5 });
      expect(buildSubmitParts(message({ source: '' }), '+15551234567')[0]).toMatchObject({
        sourceAddr: '15551234567',
        sourceAddrTon: 1,
        sourceAddrNpi: 1,
      });
    });

    it('leaves the source to the carrier (TON 0 / NPI 0) when there is no default either', () => {
      expect(buildSubmitParts(message({ source: null }), '')[0]).toMatchObject({ sourceAddr: '', sourceAddrTon: 0, sourceAddrNpi: 0 });
    });

    it('always sends the destination as international digits without +', () => {
      expect(buildSubmitParts(message({ destination: '+919876543210' }), DEFAULT_SOURCE)[0]).toMatchObject({
        destinationAddr: '919876543210',
        destAddrTon: 1,
        destAddrNpi: 1,
      });
    });
  });

  describe('a multi-part GSM7 message', () => {
    it('puts the concatenation UDH on every part, at most 153 septets each, esm_class 0x40', () => {
      const parts = buildSubmitParts(message({ text: 'a'.repeat(161) }), DEFAULT_SOURCE);
      expect(parts.map(udhOf)).toEqual([
        [0x05, 0x00, 0x03, 0x2a, 2, 1],
        [0x05, 0x00, 0x03, 0x2a, 2, 2],
      ]);
      expect(parts.map((part) => bodyOf(part).length)).toEqual([153, 8]);
      expect(parts.map((part) => part.esmClass)).toEqual([0x40, 0x40]);
      expect(parts.every((part) => part.dataCoding === 0 && part.registeredDelivery === 1)).toBe(true);
    });

    it('never splits an escape pair across parts', () => {
      const parts = buildSubmitParts(message({ text: `${'a'.repeat(152)}€${'b'.repeat(10)}` }), DEFAULT_SOURCE);
      expect(parts).toHaveLength(2);
      expect(bodyOf(parts[0])).toEqual(Array(152).fill(0x61));
      expect(bodyOf(parts[1]).slice(0, 2)).toEqual([0x1b, 0x65]);
    });

    it('joins back to the whole text', () => {
      const text = `${'The quick brown fox {jumps} over the lazy dog. '.repeat(10)}€`;
      const parts = buildSubmitParts(message({ text }), DEFAULT_SOURCE);
      const whole = parts.flatMap(bodyOf);
      expect(parts.length).toBeGreaterThan(1);
      expect(whole.filter((septet) => septet === 0x1b)).toHaveLength(21);
      expect(whole).toHaveLength(analyzeText(text, 'GSM7').units);
      expect(parts.every((part) => bodyOf(part).length <= 153 && bodyOf(part).at(-1) !== 0x1b)).toBe(true);
    });
  });

  describe('UCS2', () => {
    it('sends a single part as UTF-16BE with data_coding 8', () => {
      const [part] = buildSubmitParts(message({ text: 'Привет 😀', encoding: 'UCS2' }), DEFAULT_SOURCE);
      expect(part).toMatchObject({ dataCoding: 8, esmClass: 0 });
      expect(bytes(part)).toEqual([
        0x04, 0x1f, 0x04, 0x40, 0x04, 0x38, 0x04, 0x32, 0x04, 0x35, 0x04, 0x42, 0x00, 0x20, 0xd8, 0x3d, 0xde, 0x00,
      ]);
    });

    it('sends 70 units in one part and 71 in two of at most 67', () => {
      expect(buildSubmitParts(message({ text: 'Ж'.repeat(70), encoding: 'UCS2' }), DEFAULT_SOURCE)).toHaveLength(1);
      const parts = buildSubmitParts(message({ text: 'Ж'.repeat(71), encoding: 'UCS2' }), DEFAULT_SOURCE);
      expect(parts.map((part) => bodyOf(part).length / 2)).toEqual([67, 4]);
      expect(parts.map(udhOf)).toEqual([
        [0x05, 0x00, 0x03, 0x2a, 2, 1],
        [0x05, 0x00, 0x03, 0x2a, 2, 2],
      ]);
      expect(parts.every((part) => part.shortMessage.length <= 140 && part.esmClass === 0x40)).toBe(true);
    });

    it('never splits a surrogate pair across parts', () => {
      const parts = buildSubmitParts(message({ text: `${'Ж'.repeat(66)}😀${'Ж'.repeat(5)}`, encoding: 'UCS2' }), DEFAULT_SOURCE);
      expect(parts).toHaveLength(2);
      expect(ucs2Units(bodyOf(parts[0]))).toEqual(Array(66).fill(0x0416));
      expect(ucs2Units(bodyOf(parts[1])).slice(0, 2)).toEqual([0xd83d, 0xde00]);
    });
  });

  it.each([
    ['short GSM7', 'Hi', 'GSM7'],
    ['long GSM7', 'x'.repeat(1530), 'GSM7'],
    ['GSM7 with extension characters', '{}'.repeat(200), 'GSM7'],
    ['long UCS2', 'ж'.repeat(670), 'UCS2'],
    ['UCS2 with emoji', '😀a'.repeat(100), 'UCS2'],
  ] as const)('sends as many parts as the message was accepted with (%s)', (_, text, encoding) => {
    const parts = buildSubmitParts(message({ text, encoding }), DEFAULT_SOURCE);
    expect(parts).toHaveLength(analyzeText(text, encoding).parts);
    expect(parts.every((part, index) => parts.length === 1 || udhOf(part)[5] === index + 1)).toBe(true);
  });

  it('sends an empty text as one empty part', () => {
    expect(buildSubmitParts(message({ text: '' }), DEFAULT_SOURCE).map(bytes)).toEqual([[]]);
  });

  it.each([-1, 256, 1.5])('refuses concatReference %p', (concatReference) => {
    expect(() => buildSubmitParts(message({ concatReference }), DEFAULT_SOURCE)).toThrow(RangeError);
  });
});

describe('concatReferenceFor', () => {
  const umid = (n: number): string => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

  it('is the same for the same umid, whatever its case', () => {
    const id = '7D3F6C1E-AB12-4000-8000-00000000CAFE';
    expect(concatReferenceFor(id)).toBe(concatReferenceFor(id));
    expect(concatReferenceFor(id)).toBe(concatReferenceFor(id.toLowerCase()));
  });

  it('is an integer 0..255 and spreads over the range', () => {
    const refs = Array.from({ length: 2000 }, (_, n) => concatReferenceFor(umid(n)));
    expect(refs.every((ref) => Number.isInteger(ref) && ref >= 0 && ref <= 255)).toBe(true);
    expect(new Set(refs).size).toBeGreaterThan(240);
  });
});
