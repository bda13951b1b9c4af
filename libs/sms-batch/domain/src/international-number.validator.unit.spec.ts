import examples from 'libphonenumber-js/examples.mobile.json';
import { getCountries, getCountryCallingCode, parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { isValidInternationalNumber } from './international-number.validator';

/** What the library itself says: valid, and read with the same digits (nothing stripped). */
const libraryAccepts = (digits: string): boolean => {
  const phone = parsePhoneNumberFromString(`+${digits}`);
  return phone !== undefined && phone.isValid() && phone.number === `+${digits}`;
};

/** Deterministic digits, so a failure can be reproduced. */
function* pseudoRandomDigits(seed: number, count: number, length: number): Generator<string> {
  let state = seed;
  for (let n = 0; n < count; n++) {
    let digits = '';
    for (let i = 0; i < length; i++) {
      state = (state * 1103515245 + 12345) % 2147483648;
      digits += String(Math.floor((state / 2147483648) * 10));
    }
    yield digits;
  }
}

function candidates(): string[] {
  const numbers = new Set<string>();
  for (const country of getCountries()) {
    const callingCode = getCountryCallingCode(country);
    const example = examples[country];
    if (example) {
      numbers.add(callingCode + example);
      numbers.add(callingCode + example.slice(0, -1));
      numbers.add(`${callingCode + example}0`);
      numbers.add(`${callingCode}0${example}`);
      numbers.add(`${callingCode}1${example}`);
      for (let digit = 0; digit <= 9; digit++) {
        numbers.add(callingCode + String(digit) + example.slice(1));
        numbers.add(callingCode + example.slice(0, -1) + String(digit));
      }
    }
    for (const length of [6, 8, 9, 10, 11]) {
      for (const national of pseudoRandomDigits(Number(callingCode) * 31 + length, 8, length)) {
        numbers.add(callingCode + national);
      }
    }
  }
  return [...numbers];
}

describe('isValidInternationalNumber agrees with libphonenumber-js/max', () => {
  const numbers = candidates();

  it('on example, mutated and random numbers of every country', () => {
    const disagreements = numbers.filter((digits) => {
      const fast = isValidInternationalNumber(digits);
      return fast !== undefined && fast !== libraryAccepts(digits);
    });
    expect(disagreements).toEqual([]);
  });

  it('decides most example numbers itself rather than leaving them to the library', () => {
    const exampleNumbers = getCountries().flatMap((country) =>
      examples[country] ? [getCountryCallingCode(country) + examples[country]] : [],
    );
    const decided = exampleNumbers.filter((digits) => isValidInternationalNumber(digits) !== undefined);
    expect(decided.length / exampleNumbers.length).toBeGreaterThan(0.9);
    expect(decided.every((digits) => isValidInternationalNumber(digits) === true)).toBe(true);
  });

  it('leaves numbers with a national prefix and non-geographic codes to the library', () => {
    expect(isValidInternationalNumber('4407400123456')).toBeUndefined();
    expect(isValidInternationalNumber('80012345678')).toBeUndefined();
  });
});
