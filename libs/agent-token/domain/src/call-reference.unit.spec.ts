import { CALL_REFERENCE, generateCallReference } from './call-reference';

describe('call_reference', () => {
  it('accepts 8 to 20 characters of letters, digits, _ and -', () => {
    for (const ok of ['abcdefgh', 'A1_-A1_-A1_-A1_-A1_-', 'call-2026_11']) expect(CALL_REFERENCE.test(ok)).toBe(true);
    for (const bad of ['abcdefg', 'a'.repeat(21), 'call ref 1', 'call.ref.1', 'réf-000001', 'abcdefgh\n']) {
      expect(CALL_REFERENCE.test(bad)).toBe(false);
    }
  });

  it('generates 12 valid characters from the random bytes given, the same bytes giving the same reference', () => {
    const bytes = Uint8Array.from({ length: 12 }, (_, i) => i * 21);
    const reference = generateCallReference(bytes);
    expect(reference).toHaveLength(12);
    expect(CALL_REFERENCE.test(reference)).toBe(true);
    expect(generateCallReference(bytes)).toBe(reference);
    expect(generateCallReference(new Uint8Array(12).fill(255))).not.toBe(reference);
  });
});
