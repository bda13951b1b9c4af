import examples from 'libphonenumber-js/examples.mobile.json';
import {
  type CountryCode,
  getCountries,
  getCountryCallingCode,
  parsePhoneNumberFromString,
} from 'libphonenumber-js/max';
import { fastInternationalMsisdn, fastNationalMsisdn } from './numbering-plan.fast-path';

// The reference: what libphonenumber-js/max itself answers for the same input.
const library = (phone: ReturnType<typeof parsePhoneNumberFromString>): string | null =>
  phone?.isValid() ? phone.number.slice(1) : null;
const libraryInternational = (digits: string): string | null => library(parsePhoneNumberFromString(`+${digits}`));
const libraryNational = (digits: string, country: CountryCode): string | null =>
  library(parsePhoneNumberFromString(digits, country));

/** Deterministic digits, so that a failure can be reproduced. */
function pseudoRandomDigits(seed: number, count: number, length: number): string[] {
  let state = seed;
  return Array.from({ length: count }, () => {
    let digits = '';
    for (let i = 0; i < length; i++) {
      state = (state * 1103515245 + 12345) % 2147483648;
      digits += String(Math.floor((state / 2147483648) * 10));
    }
    return digits;
  });
}

/** National numbers around the country's example: as is, mutated, with prefixes, and random. */
function nationalVariants(country: CountryCode): string[] {
  const variants = new Set<string>();
  const example = examples[country];
  if (example) {
    const nationalFormat = parsePhoneNumberFromString(example, country)?.formatNational().replace(/\D/g, '');
    for (const national of nationalFormat ? [example, nationalFormat] : [example]) {
      variants.add(national);
      variants.add(national.slice(0, -1));
      variants.add(`${national}0`);
      for (const prefix of ['0', '1', '8', '00', '011', getCountryCallingCode(country)]) variants.add(prefix + national);
      for (let digit = 0; digit <= 9; digit++) {
        variants.add(String(digit) + national.slice(1));
        variants.add(national.slice(0, -1) + String(digit));
      }
    }
  }
  for (const length of [6, 8, 9, 10, 11]) {
    for (const digits of pseudoRandomDigits(country.charCodeAt(0) * 97 + country.charCodeAt(1) + length, 6, length)) {
      variants.add(digits);
      variants.add(`0${digits}`);
    }
  }
  return [...variants];
}

const countries = getCountries();

describe('the numbering-plan fast path agrees with libphonenumber-js/max', () => {
  it('on international numbers of every country: examples, mutations, prefixes and random digits', () => {
    const disagreements = countries.flatMap((country) => {
      const callingCode = getCountryCallingCode(country);
      return nationalVariants(country)
        .map((national) => callingCode + national)
        .filter((digits) => {
          const fast = fastInternationalMsisdn(digits);
          return fast !== undefined && fast !== libraryInternational(digits);
        });
    });
    expect(disagreements).toEqual([]);
  });

  it('on national numbers of every country: examples, mutations, prefixes and random digits', () => {
    const disagreements = countries.flatMap((country) =>
      nationalVariants(country)
        .filter((digits) => {
          const fast = fastNationalMsisdn(digits, country);
          return fast !== undefined && fast !== libraryNational(digits, country);
        })
        .map((digits) => `${country} ${digits}`),
    );
    expect(disagreements).toEqual([]);
  });

  // Inputs that take the rarely used branches (found by a wide random search): a number that only
  // matches before its national prefix is stripped, and a stripped number whose length is checked
  // against the country that the shared calling code points to.
  it.each<[CountryCode, string]>([
    ['RU', '8002062622'],
    ['LT', '80132195'],
    ['RW', '06953060'],
    ['CC', '016360'],
    ['GB', '07911123456'],
    ['IM', '07624123456'],
    ['US', '2025550123'],
  ])('on the edge case %s %s', (country, digits) => {
    expect(fastNationalMsisdn(digits, country)).toBe(libraryNational(digits, country));
    expect(libraryNational(digits, country)).not.toBeNull();
  });

  it('decides nearly all example numbers itself rather than leaving them to the library', () => {
    const withExamples = countries.filter((country) => examples[country]);
    const international = withExamples.map((country) => fastInternationalMsisdn(getCountryCallingCode(country) + examples[country]));
    const national = withExamples.map((country) => {
      const phone = parsePhoneNumberFromString(examples[country], country);
      return fastNationalMsisdn(phone?.formatNational().replace(/\D/g, '') ?? '', country);
    });
    for (const answers of [international, national]) {
      const decided = answers.filter((answer) => answer !== undefined);
      expect(decided.length / answers.length).toBeGreaterThan(0.85);
      expect(decided.every((answer) => answer !== null)).toBe(true);
    }
  });

  it('leaves off-path inputs to the library', () => {
    expect(fastInternationalMsisdn('4407400123456')).toBeUndefined(); // national prefix after +44
    expect(fastInternationalMsisdn('80012345678')).toBeUndefined(); // non-geographic +800
    expect(fastNationalMsisdn('00447400123456', 'GB')).toBeUndefined(); // international dialling prefix
    expect(fastNationalMsisdn('447400123456', 'GB')).toBeUndefined(); // starts with the calling code
  });
});
