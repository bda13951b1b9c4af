import { decodeGsm7, decodeText, decodeUcs2, encodeGsm7, encodeUcs2 } from './sms-text.codec';

describe('GSM 03.38 default alphabet, unpacked', () => {
  it('decodes the characters that differ from ASCII', () => {
    expect(decodeGsm7(Buffer.from([0x00, 0x01, 0x02, 0x03, 0x11, 0x10, 0x24, 0x40, 0x5b, 0x5f, 0x60, 0x7f]))).toBe('@£$¥_Δ¤¡Ä§¿à');
  });

  it('decodes plain text like ASCII', () => {
    expect(decodeGsm7(Buffer.from('Hello, World! 123 (ok)?', 'ascii'))).toBe('Hello, World! 123 (ok)?');
  });

  it('decodes every character of the extension table through the escape', () => {
    const ext = [0x0a, 0x14, 0x28, 0x29, 0x2f, 0x3c, 0x3d, 0x3e, 0x40, 0x65].flatMap((code) => [0x1b, code]);
    expect(decodeGsm7(Buffer.from(ext))).toBe('\f^{}\\[~]|€');
  });

  it('shows the default-table character for an unknown extension and a space for a lone escape', () => {
    expect(decodeGsm7(Buffer.from([0x1b, 0x41, 0x42, 0x1b]))).toBe('AB ');
  });

  it('encodes back, escaping extension characters and replacing the rest with ?', () => {
    const text = 'Price: 5€ [50% off] {a|b} ~x^y\\z @home_£';
    expect(decodeGsm7(encodeGsm7(text))).toBe(text);
    expect([...encodeGsm7('€')]).toEqual([0x1b, 0x65]);
    expect(decodeGsm7(encodeGsm7('日本 😀'))).toBe('?? ?');
  });

  it('has 128 characters in the table', () => {
    const all = Buffer.from(Array.from({ length: 128 }, (_, i) => i).filter((i) => i !== 0x1b));
    expect(Array.from(decodeGsm7(all))).toHaveLength(127);
  });
});

describe('UCS-2 big endian', () => {
  it('decodes surrogate pairs into one character', () => {
    expect(decodeUcs2(Buffer.from('d83dde00', 'hex'))).toBe('😀');
    expect(decodeUcs2(Buffer.from('004800690020d83ddc4b', 'hex'))).toBe('Hi 👋');
  });

  it('round trips any BMP and astral text', () => {
    const text = 'Привет, 世界! 👩‍👩‍👧 ok';
    expect(decodeUcs2(encodeUcs2(text))).toBe(text);
  });

  it('joins a pair split over two parts once their halves are concatenated', () => {
    const bytes = encodeUcs2('a😀');
    expect(decodeUcs2(bytes.subarray(0, 4)) + decodeUcs2(bytes.subarray(4))).toBe('a😀');
  });

  it('ignores a dangling odd octet', () => {
    expect(decodeUcs2(Buffer.from('004100', 'hex'))).toBe('A');
  });
});

describe('decodeText by data_coding', () => {
  it.each([
    [0, Buffer.from([0x00, 0x1b, 0x65]), '@€'],
    [1, Buffer.from('plain @ascii$', 'ascii'), 'plain @ascii$'],
    [3, Buffer.from([0x63, 0x61, 0x66, 0xe9, 0xa3]), 'café£'],
    [8, Buffer.from('00e9d83dde00', 'hex'), 'é😀'],
    [4, Buffer.from([0xde, 0xad]), 'dead'],
    [0xf0, Buffer.from([0x00]), '@'],
    [0xf4, Buffer.from([0x01]), '01'],
  ])('data_coding %i', (dataCoding, bytes, text) => {
    expect(decodeText(dataCoding, bytes)).toBe(text);
  });
});
