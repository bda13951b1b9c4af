import {
  GSM7_DEFAULT_ALPHABET,
  GSM7_EXTENSION_FLAG,
  GSM7_EXTENSION_TABLE,
  GSM7_NOT_IN_ALPHABET,
  gsm7CodeOf,
  isGsm7Extension,
} from './gsm7-alphabet';

const code = (char: string): number => gsm7CodeOf(char.charCodeAt(0));

describe('GSM 03.38 default alphabet', () => {
  it('has 128 positions, the escape being no character', () => {
    expect(GSM7_DEFAULT_ALPHABET).toHaveLength(128);
    expect(GSM7_DEFAULT_ALPHABET[0x1b]).toBeNull();
    expect(GSM7_DEFAULT_ALPHABET.filter((char) => char !== null)).toHaveLength(127);
    expect(new Set(GSM7_DEFAULT_ALPHABET).size).toBe(128);
  });

  it.each([
    ['@', 0x00], ['£', 0x01], ['$', 0x02], ['¥', 0x03], ['è', 0x04], ['é', 0x05], ['ù', 0x06], ['ì', 0x07],
    ['ò', 0x08], ['Ç', 0x09], ['\n', 0x0a], ['Ø', 0x0b], ['ø', 0x0c], ['\r', 0x0d], ['Å', 0x0e], ['å', 0x0f],
    ['Δ', 0x10], ['_', 0x11], ['Φ', 0x12], ['Γ', 0x13], ['Λ', 0x14], ['Ω', 0x15], ['Π', 0x16], ['Ψ', 0x17],
    ['Σ', 0x18], ['Θ', 0x19], ['Ξ', 0x1a], ['Æ', 0x1c], ['æ', 0x1d], ['ß', 0x1e], ['É', 0x1f],
    [' ', 0x20], ['!', 0x21], ['"', 0x22], ['#', 0x23], ['¤', 0x24], ['%', 0x25], ["'", 0x27], ['/', 0x2f],
    ['0', 0x30], ['9', 0x39], ['?', 0x3f], ['¡', 0x40], ['A', 0x41], ['Z', 0x5a],
    ['Ä', 0x5b], ['Ö', 0x5c], ['Ñ', 0x5d], ['Ü', 0x5e], ['§', 0x5f], ['¿', 0x60], ['a', 0x61], ['z', 0x7a],
    ['ä', 0x7b], ['ö', 0x7c], ['ñ', 0x7d], ['ü', 0x7e], ['à', 0x7f],
  ])('maps %j to septet %i', (char, septet) => {
    expect(GSM7_DEFAULT_ALPHABET[septet]).toBe(char);
    expect(code(char)).toBe(septet);
    expect(isGsm7Extension(code(char))).toBe(false);
  });
});

describe('GSM 03.38 extension table', () => {
  it.each([
    ['\f', 0x0a], ['^', 0x14], ['{', 0x28], ['}', 0x29], ['\\', 0x2f],
    ['[', 0x3c], ['~', 0x3d], [']', 0x3e], ['|', 0x40], ['€', 0x65],
  ])('maps %j to escape + %i', (char, septet) => {
    expect(GSM7_EXTENSION_TABLE.get(char)).toBe(septet);
    expect(code(char)).toBe(GSM7_EXTENSION_FLAG | septet);
    expect(isGsm7Extension(code(char))).toBe(true);
  });

  it('holds exactly the ten characters of the standard', () => {
    expect(GSM7_EXTENSION_TABLE.size).toBe(10);
  });
});

describe('characters outside the alphabet', () => {
  it.each(['ç', 'á', 'í', 'ó', 'ú', 'Ş', 'ğ', 'α', 'Ж', '中', '`', '\u001b', '\t', '\u00a0', '\ud83d'])(
    'finds no code for %j',
    (char) => {
      expect(code(char)).toBe(GSM7_NOT_IN_ALPHABET);
      expect(isGsm7Extension(code(char))).toBe(false);
    },
  );

  it('finds no code far above the table', () => {
    expect(gsm7CodeOf(0xffff)).toBe(GSM7_NOT_IN_ALPHABET);
  });
});
