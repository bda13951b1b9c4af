import { isSupportedCountryCode, normalizeMsisdn } from './msisdn';

describe('normalizeMsisdn', () => {
  it.each([
    ['+447400123456', '447400123456'], // GB mobile
    ['+442079460000', '442079460000'], // GB London
    ['+12025550123', '12025550123'], // US
    ['+4915123456789', '4915123456789'], // DE mobile
    ['+49301234567', '49301234567'], // DE Berlin
    ['+919876543210', '919876543210'], // IN mobile
    ['+447624123456', '447624123456'], // IM, sharing +44 with GB
    ['+15145550123', '15145550123'], // CA, sharing +1 with US
  ])('accepts the international number %s', (destination, e164) => {
    expect(normalizeMsisdn(destination)).toBe(e164);
  });

  it('accepts 00 and bare international digits as +', () => {
    expect(normalizeMsisdn('00447400123456')).toBe('447400123456');
    expect(normalizeMsisdn('447400123456')).toBe('447400123456');
    expect(normalizeMsisdn('919876543210')).toBe('919876543210');
  });

  it('strips spaces, dashes, dots and parentheses', () => {
    expect(normalizeMsisdn(' +44 (0)7400-123.456 ')).toBe('447400123456');
    expect(normalizeMsisdn('+1 (202) 555-0123')).toBe('12025550123');
  });

  it('accepts national format with a country', () => {
    expect(normalizeMsisdn('07911 123456', 'GB')).toBe('447911123456');
    expect(normalizeMsisdn('(202) 555-0123', 'US')).toBe('12025550123');
    expect(normalizeMsisdn('030 1234567', 'DE')).toBe('49301234567');
    expect(normalizeMsisdn('098765 43210', 'IN')).toBe('919876543210');
  });

  it('still accepts international formats when a country is given', () => {
    expect(normalizeMsisdn('+4915123456789', 'GB')).toBe('4915123456789');
    expect(normalizeMsisdn('447400123456', 'GB')).toBe('447400123456');
    expect(normalizeMsisdn('919876543210', 'US')).toBe('919876543210');
  });

  it('refuses national format without a country', () => {
    expect(normalizeMsisdn('07911123456')).toBeNull();
    expect(normalizeMsisdn('2025550123')).toBeNull(); // +20 is Egypt, and this is not an Egyptian number
  });

  it.each([
    ['+4479111234', 'too short'],
    ['+44791112345678', 'too long'],
    ['+12025550123'.slice(0, 8), 'too short for NANP'],
    ['+999123456', 'unknown calling code'],
    ['+0447400123456', 'calling code starting with 0'],
    ['+1800FLOWERS', 'letters'],
    ['44740012345a', 'a letter'],
    ['+44 7400 123456 ext 5', 'an extension'],
    ['', 'nothing'],
    ['+', 'only a plus'],
    ['++447400123456', 'two plus signs'],
  ])('refuses %j (%s)', (destination) => {
    expect(normalizeMsisdn(destination)).toBeNull();
  });

  it('refuses any number with an unknown or malformed country', () => {
    expect(normalizeMsisdn('07911123456', 'XX')).toBeNull();
    expect(normalizeMsisdn('+447400123456', 'ZZ')).toBeNull();
    expect(normalizeMsisdn('07911123456', 'gb')).toBeNull();
    expect(normalizeMsisdn('07911123456', 'GBR')).toBeNull();
  });
});

describe('isSupportedCountryCode', () => {
  it.each([
    ['GB', true],
    ['US', true],
    ['DE', true],
    ['IN', true],
    ['GG', true],
    ['XX', false],
    ['gb', false],
    ['GBR', false],
    ['', false],
    ['001', false],
  ])('%j -> %s', (country, supported) => {
    expect(isSupportedCountryCode(country)).toBe(supported);
  });
});
