import { analyzeText, encodeGsm7Septets, isWithinTextLimit, MAX_PARTS, splitIntoParts } from './sms-text';

const EMOJI = '😀'; // one code point, two UTF-16 units
const UCS2_CHAR = 'Ж'; // one UTF-16 unit, outside GSM

describe('analyzeText: AUTO detection', () => {
  it('picks GSM7 for plain text and counts one septet per character', () => {
    expect(analyzeText('Hello @ £5 Ü ø Δ_Ω ¿¡')).toEqual({
      encoding: 'GSM7',
      text: 'Hello @ £5 Ü ø Δ_Ω ¿¡',
      units: 21,
      parts: 1,
    });
  });

  it('picks GSM7 with extension characters, each counting two septets', () => {
    expect(analyzeText('{€}')).toEqual({ encoding: 'GSM7', text: '{€}', units: 6, parts: 1 });
    expect(analyzeText('a^b|c\\d[e]f~g\f')).toMatchObject({ encoding: 'GSM7', units: 7 + 7 * 2 });
  });

  it('picks UCS2 as soon as one character is outside the alphabet, counting UTF-16 units', () => {
    expect(analyzeText(`Hi ${UCS2_CHAR}`)).toEqual({ encoding: 'UCS2', text: 'Hi Ж', units: 4, parts: 1 });
    expect(analyzeText('ç')).toMatchObject({ encoding: 'UCS2' });
  });

  it('picks UCS2 for an emoji and counts its surrogate pair as two units', () => {
    expect(analyzeText(`ok ${EMOJI}`)).toEqual({ encoding: 'UCS2', text: 'ok 😀', units: 5, parts: 1 });
  });

  it('treats an empty text as one part of GSM7 (callers reject it as missing first)', () => {
    expect(analyzeText('')).toEqual({ encoding: 'GSM7', text: '', units: 0, parts: 1 });
    expect(analyzeText('', 'UCS2')).toEqual({ encoding: 'UCS2', text: '', units: 0, parts: 1 });
  });
});

describe('analyzeText: forced encodings', () => {
  it('forced GSM7 sends characters outside the alphabet as ?', () => {
    expect(analyzeText('Ciao ç Жx', 'GSM7')).toEqual({ encoding: 'GSM7', text: 'Ciao ? ?x', units: 9, parts: 1 });
  });

  it('forced GSM7 replaces an emoji (a surrogate pair) with a single ?', () => {
    expect(analyzeText(`a${EMOJI}b`, 'GSM7')).toEqual({ encoding: 'GSM7', text: 'a?b', units: 3, parts: 1 });
  });

  it('forced GSM7 keeps extension characters and counts them double', () => {
    expect(analyzeText('€ ç', 'GSM7')).toEqual({ encoding: 'GSM7', text: '€ ?', units: 4, parts: 1 });
  });

  it('forced UCS2 keeps GSM text as is and counts UTF-16 units', () => {
    expect(analyzeText('{hello}', 'UCS2')).toEqual({ encoding: 'UCS2', text: '{hello}', units: 7, parts: 1 });
  });
});

describe('part boundaries, GSM7', () => {
  it.each([
    [160, 1],
    [161, 2],
    [306, 2],
    [307, 3],
    [153 * 3, 3],
    [1530, 10],
    [1531, 11],
  ])('%i plain characters need %i parts', (length, parts) => {
    expect(analyzeText('a'.repeat(length))).toMatchObject({ encoding: 'GSM7', units: length, parts });
  });

  it('160 septets with extension characters fit one part, 161 do not', () => {
    expect(analyzeText('€'.repeat(80)).parts).toBe(1);
    expect(analyzeText(`${'€'.repeat(80)}a`).parts).toBe(2);
  });

  it('never splits an escape pair: it moves to the next part', () => {
    const text = `${'a'.repeat(152)}€${'a'.repeat(10)}`; // the € would take septets 153 and 154
    expect(analyzeText(text)).toMatchObject({ units: 164, parts: 2 });
    expect(splitIntoParts(text, 'GSM7')).toEqual(['a'.repeat(152), `€${'a'.repeat(10)}`]);
  });

  it('a moved escape pair can cost an extra part: 306 septets needing 3 parts', () => {
    const text = `${'a'.repeat(152)}€${'a'.repeat(152)}`;
    expect(analyzeText(text)).toMatchObject({ units: 306, parts: 3 });
  });

  it('1530 septets of extension characters fill exactly 10 parts only when pairs align', () => {
    expect(analyzeText('€'.repeat(765))).toMatchObject({ units: 1530, parts: 11 }); // 153 is odd: 76 pairs a part
    expect(analyzeText('€'.repeat(760))).toMatchObject({ units: 1520, parts: 10 });
  });
});

describe('part boundaries, UCS2', () => {
  const ucs2 = (length: number): string => UCS2_CHAR.repeat(length);

  it.each([
    [70, 1],
    [71, 2],
    [134, 2],
    [135, 3],
    [670, 10],
    [671, 11],
  ])('%i characters need %i parts', (length, parts) => {
    expect(analyzeText(ucs2(length))).toMatchObject({ encoding: 'UCS2', units: length, parts });
  });

  it('never splits a surrogate pair: it moves to the next part', () => {
    const text = `${ucs2(66)}${EMOJI}${ucs2(10)}`; // the emoji would take units 67 and 68
    expect(analyzeText(text)).toMatchObject({ units: 78, parts: 2 });
    expect(splitIntoParts(text, 'UCS2')).toEqual([ucs2(66), `${EMOJI}${ucs2(10)}`]);
  });

  it('35 emoji (70 units) fit one part', () => {
    expect(analyzeText(EMOJI.repeat(35)).parts).toBe(1);
    expect(analyzeText(EMOJI.repeat(36)).parts).toBe(2);
  });
});

describe('isWithinTextLimit', () => {
  it('allows at most 10 parts: 1530 GSM septets and 670 UCS-2 units', () => {
    expect(MAX_PARTS).toBe(10);
    expect(isWithinTextLimit(analyzeText('a'.repeat(1530)))).toBe(true);
    expect(isWithinTextLimit(analyzeText('a'.repeat(1531)))).toBe(false);
    expect(isWithinTextLimit(analyzeText('Ж'.repeat(670)))).toBe(true);
    expect(isWithinTextLimit(analyzeText('Ж'.repeat(671)))).toBe(false);
    expect(isWithinTextLimit(analyzeText('a'.repeat(671), 'UCS2'))).toBe(false);
  });
});

describe('encodeGsm7Septets', () => {
  it('gives septet values and escapes extension characters', () => {
    expect(encodeGsm7Septets('@£$A\n€{')).toEqual([0x00, 0x01, 0x02, 0x41, 0x0a, 0x1b, 0x65, 0x1b, 0x28]);
  });

  it('sends characters outside the alphabet as ?, one per code point', () => {
    expect(encodeGsm7Septets(`ç${EMOJI}`)).toEqual([0x3f, 0x3f]);
  });
});

describe('splitIntoParts', () => {
  it('returns the whole text when it fits one part', () => {
    expect(splitIntoParts('a'.repeat(160), 'GSM7')).toEqual(['a'.repeat(160)]);
    expect(splitIntoParts('Ж'.repeat(70), 'UCS2')).toEqual(['Ж'.repeat(70)]);
    expect(splitIntoParts('', 'GSM7')).toEqual(['']);
  });

  it('cuts plain GSM7 text every 153 septets and UCS2 every 67 units', () => {
    const gsm = splitIntoParts('a'.repeat(400), 'GSM7');
    expect(gsm.map((part) => part.length)).toEqual([153, 153, 94]);
    const ucs2 = splitIntoParts('Ж'.repeat(150), 'UCS2');
    expect(ucs2.map((part) => part.length)).toEqual([67, 67, 16]);
  });

  it('gives as many parts as analyzeText counts, rejoining to the sent text', () => {
    const texts = [
      `${'x€'.repeat(200)}`,
      `${'Ж😀'.repeat(100)}`,
      `${'a'.repeat(150)}${EMOJI}${'b'.repeat(200)}`,
      'plain '.repeat(100),
    ];
    for (const text of texts) {
      for (const encoding of ['AUTO', 'GSM7', 'UCS2'] as const) {
        const analysis = analyzeText(text, encoding);
        const parts = splitIntoParts(analysis.text, analysis.encoding);
        expect(parts).toHaveLength(analysis.parts);
        expect(parts.join('')).toBe(analysis.text);
      }
    }
  });
});
