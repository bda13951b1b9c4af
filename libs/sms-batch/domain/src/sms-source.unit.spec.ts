import { isSourceWithinLimit, sourceKind } from './sms-source';

describe('isSourceWithinLimit', () => {
  it.each([
    ['ACME', true],
    ['ACMEBANK123', true], // 11 alphanumeric
    ['ACMEBANK1234', false], // 12
    ['Ünïcødé Co', true], // counted in characters, not bytes
    ['', true],
  ])('alphanumeric %j -> %s', (source, within) => {
    expect(isSourceWithinLimit(source)).toBe(within);
  });

  it.each([
    ['1234567890123456', true], // 16 digits
    ['12345678901234567', false], // 17
    ['+1234567890123456', true], // the + is not a digit
    ['+12345678901234567', false],
    ['12345', true],
  ])('numeric %j -> %s', (source, within) => {
    expect(isSourceWithinLimit(source)).toBe(within);
  });

  it('treats digits mixed with other characters as alphanumeric', () => {
    expect(isSourceWithinLimit('123 456 789')).toBe(true); // 11 characters
    expect(isSourceWithinLimit('1234-5678-90')).toBe(false); // 12 characters
  });
});

describe('sourceKind', () => {
  it.each([
    ['ACME', 'alphanumeric'],
    ['12AB', 'alphanumeric'],
    ['12345', 'shortcode'],
    ['12345678', 'shortcode'],
    ['123456789', 'international'],
    ['447911123456', 'international'],
    ['+447911123456', 'international'],
    ['+12345', 'international'],
  ] as const)('%j is %s', (source, kind) => {
    expect(sourceKind(source)).toBe(kind);
  });
});
