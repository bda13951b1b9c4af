import { inboundSender } from './inbound-sender';

const UK_NUMBER = '447911100100';

describe('inboundSender', () => {
  it.each([
    ['447911123456', 1, '447911123456', 'international, as given'],
    ['+447911123456', 1, '447911123456', 'international with a plus'],
    ['07911123456', 2, '447911123456', 'national, in the country of the number it was sent to'],
    ['07911 123456', 2, '447911123456', 'national with a space'],
    ['07911123456', 0, '447911123456', 'an unknown TON with a trunk prefix: national'],
    ['00447911123456', 0, '447911123456', 'an unknown TON with the international prefix'],
    ['+447911123456', 0, '447911123456', 'an unknown TON with a plus'],
    ['ACME', 5, 'ACME', 'alphanumeric: as given'],
    ['80080', 3, '80080', 'a network-specific short code: as given'],
    ['0123', 2, '0123', 'a national number no plan knows: as given'],
  ])('reads %s (TON %i) as %s: %s', (source, ton, expected) => {
    expect(inboundSender(source, ton, UK_NUMBER)).toBe(expected);
  });

  it('reads a national sender in the country of a national-format number it was sent to', () => {
    expect(inboundSender('07911123456', 2, '447911100100')).toBe(inboundSender('07911123456', 2, '+44 7911 100100'));
  });

  it('reads a national sender to a US number as a US number', () => {
    expect(inboundSender('2015550123', 2, '12015550199')).toBe('12015550123');
  });
});
