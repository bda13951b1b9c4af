import { decodeUserData, encodingOfDataCoding, UNREADABLE_CHARACTER } from './inbound-text';

const gsm = (...septets: number[]): string => decodeUserData(Uint8Array.from(septets), 'GSM7');
const ucs2 = (...octets: number[]): string => decodeUserData(Uint8Array.from(octets), 'UCS2');

describe('encodingOfDataCoding', () => {
  it.each([
    [0x00, 'GSM7'],
    [0x01, 'ASCII'],
    [0x02, 'BINARY'],
    [0x03, 'LATIN1'],
    [0x04, 'BINARY'],
    [0x06, 'BINARY'],
    [0x08, 'UCS2'],
    [0xf0, 'GSM7'],
    [0xf1, 'GSM7'],
    [0xf4, 'BINARY'],
    [0xc0, 'GSM7'],
    [0xd3, 'GSM7'],
    [0xe0, 'UCS2'],
  ])('data_coding %d is %s', (dataCoding, encoding) => {
    expect(encodingOfDataCoding(dataCoding)).toBe(encoding);
  });
});

describe('decodeUserData', () => {
  it('reads a NUL (IA5, Latin-1, UCS-2) as U+FFFD, never as U+0000, which jsonb cannot hold', () => {
    expect(decodeUserData(Uint8Array.from([0x48, 0x00, 0x69]), 'ASCII')).toBe(`H${UNREADABLE_CHARACTER}i`);
    expect(decodeUserData(Uint8Array.from([0x00]), 'LATIN1')).toBe(UNREADABLE_CHARACTER);
    expect(ucs2(0x00, 0x00, 0x00, 0x41)).toBe(`${UNREADABLE_CHARACTER}A`);
  });

  it('answers text JSON and PostgreSQL can store for any octets in any encoding (seeded, 20,000 payloads)', () => {
    let seed = 0x5eed;
    const next = (): number => ((seed = (seed * 1103515245 + 12345) >>> 0) >>> 16) & 0xff;
    const encodings = ['GSM7', 'ASCII', 'UCS2', 'LATIN1', 'BINARY'] as const;
    for (let i = 0; i < 20_000; i++) {
      const bytes = Uint8Array.from({ length: next() }, next);
      const text = decodeUserData(bytes, encodings[i % encodings.length] as (typeof encodings)[number]);
      // No NUL, and no lone surrogate (jsonb refuses both): the text survives a round trip as well-formed UTF-8.
      expect(text.includes('\u0000')).toBe(false);
      expect(Buffer.from(text, 'utf8').toString('utf8')).toBe(text);
    }
  });

  it('reads unpacked GSM-7 septets with the default alphabet', () => {
    expect(gsm(0x00, 0x01, 0x02, 0x48, 0x69, 0x0a, 0x7f)).toBe('@£$Hi\nà');
  });

  it('reads the extension table after an escape', () => {
    expect(gsm(0x1b, 0x65, 0x1b, 0x28, 0x1b, 0x29, 0x1b, 0x2f, 0x1b, 0x3c, 0x1b, 0x3e, 0x1b, 0x14, 0x1b, 0x3d, 0x1b, 0x40)).toBe(
      '€{}\\[]^~|',
    );
  });

  it('shows the default character for an escape the extension table lacks (23.038 6.2.1.1)', () => {
    expect(gsm(0x1b, 0x41, 0x42)).toBe('AB');
  });

  it('shows a space for escape-escape, and nothing for an escape that ends the text', () => {
    expect(gsm(0x41, 0x1b, 0x1b, 0x42, 0x1b)).toBe('A B');
  });

  it('marks an octet above 0x7F in GSM-7 or ASCII as unreadable', () => {
    expect(gsm(0x41, 0x80)).toBe(`A${UNREADABLE_CHARACTER}`);
    expect(decodeUserData(Uint8Array.of(0x40, 0x7e, 0xe9), 'ASCII')).toBe(`@~${UNREADABLE_CHARACTER}`);
  });

  it('reads Latin-1 octet by octet', () => {
    expect(decodeUserData(Uint8Array.of(0x63, 0x61, 0x66, 0xe9, 0xa3), 'LATIN1')).toBe('café£');
  });

  it('reads UCS-2 as UTF-16BE, a surrogate pair as one character', () => {
    expect(ucs2(0x00, 0x48, 0xd8, 0x3d, 0xde, 0x00, 0x04, 0x1f)).toBe('H😀П');
  });

  it('marks a lone surrogate and an odd last octet as unreadable, keeping the text valid Unicode', () => {
    expect(ucs2(0xd8, 0x3d, 0x00, 0x41, 0xde, 0x00, 0x00)).toBe(`${UNREADABLE_CHARACTER}A${UNREADABLE_CHARACTER}${UNREADABLE_CHARACTER}`);
  });

  it('writes binary user data as lowercase hex', () => {
    expect(decodeUserData(Uint8Array.of(0x00, 0x0a, 0xff), 'BINARY')).toBe('000aff');
  });
});
