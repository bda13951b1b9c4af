import { carrierIdKey, carrierIdKeys, sameCarrierId } from './carrier-message-id';

describe('carrierIdKey', () => {
  it.each([
    ['1A2B3C', '1a2b3c'],
    ['0001a2b3c', '1a2b3c'],
    ['  00042 ', '42'],
    ['000', '0'],
    ['abc\0', 'abc'],
    ['', ''],
    ['   ', ''],
    ['MSG-Id-7', 'msg-id-7'],
  ])('%j -> %j', (id, key) => {
    expect(carrierIdKey(id)).toBe(key);
  });
});

describe('carrierIdKeys', () => {
  it('gives a hex-only id its normalised form and its decimal value', () => {
    expect(carrierIdKeys('1A2B3C')).toEqual(['1a2b3c', '1715004']);
  });

  it('gives a digits-only id its hex-read decimal value and its hex form too', () => {
    expect(carrierIdKeys('1715004')).toEqual(['1715004', (0x1715004).toString(10), '1a2b3c']);
  });

  it('strips leading zeros and case before deriving the other forms', () => {
    expect(carrierIdKeys('00FF')).toEqual(['ff', '255']);
  });

  it('deduplicates forms that coincide', () => {
    expect(carrierIdKeys('0')).toEqual(['0']);
    expect(carrierIdKeys('7')).toEqual(['7']);
  });

  it('gives an id that is neither hex nor decimal only its normalised form', () => {
    expect(carrierIdKeys('Msg-0042')).toEqual(['msg-0042']);
  });

  it('gives an empty id no key at all', () => {
    expect(carrierIdKeys('')).toEqual([]);
  });

  it('handles ids longer than a double can hold exactly', () => {
    const hex = 'ffffffffffffffffffff';
    expect(carrierIdKeys(hex)).toContain(BigInt(`0x${hex}`).toString(10));
  });
});

describe('sameCarrierId', () => {
  it.each([
    ['1A2B3C', '1715004', 'hex submitted, decimal receipt'],
    ['1715004', '1a2b3c', 'decimal submitted, hex receipt'],
    ['1715004', '0001A2B3C', 'decimal submitted, zero-padded upper-case hex receipt'],
    ['00001715004', '1715004', 'leading zeros'],
    ['abcdef', 'ABCDEF', 'case'],
    ['Msg-42', 'msg-42', 'an opaque id, case'],
  ])('%s and %s are the same id (%s)', (a, b) => {
    expect(sameCarrierId(a, b)).toBe(true);
    expect(sameCarrierId(b, a)).toBe(true);
  });

  it.each([
    ['1A2B3C', '1A2B3D'],
    ['1715004', '1715005'],
    ['Msg-42', 'Msg-43'],
    ['', ''],
    ['', '0'],
  ])('%j and %j are different ids', (a, b) => {
    expect(sameCarrierId(a, b)).toBe(false);
  });

  it('finds a submitted id by a receipt key through the stored keys', () => {
    const index = new Map(carrierIdKeys('1A2B3C').map((key) => [key, 'umid-1']));
    expect(index.get(carrierIdKey('1715004'))).toBe('umid-1');
    expect(index.get(carrierIdKey('001a2b3c'))).toBe('umid-1');
  });
});
