import { type CountryCode, isSupportedCountry, parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { fastInternationalMsisdn, fastNationalMsisdn } from './numbering-plan.fast-path';

const COUNTRY_CODE = /^[A-Z]{2}$/;
const SEPARATORS = /[\s\-.()]/g;
/** After separators are gone only digits may remain, after an optional `+` or `00`. */
const DIALLABLE = /^(\+|00)?([0-9]+)$/;

/**
 * E.164 digits without `+` for a valid number (real numbering plans, libphonenumber-js/max), else
 * null. `+44…`, `0044…` and bare `44…` are international. With `country`, bare digits are first read
 * as a national number of that country (`07911 123456` with GB), then as international.
 * Letters are refused rather than read as a vanity number; an unsupported country refuses all.
 */
export function normalizeMsisdn(destination: string, country?: string): string | null {
  const region = country === undefined ? undefined : supportedCountry(country);
  if (region === null) return null;
  const match = DIALLABLE.exec(destination.replace(SEPARATORS, ''));
  const internationalPrefix = match?.[1];
  const digits = match?.[2];
  if (digits === undefined) return null;
  if (internationalPrefix !== undefined || region === undefined) return normalizeInternational(digits);
  return normalizeNational(digits, region) ?? normalizeInternational(digits);
}

/** ISO 3166-1 alpha-2, in capitals as the contract writes it, known to the numbering metadata. */
export function isSupportedCountryCode(country: string): boolean {
  return supportedCountry(country) !== null;
}

function supportedCountry(country: string): CountryCode | null {
  return COUNTRY_CODE.test(country) && isSupportedCountry(country) ? country : null;
}

function normalizeInternational(digits: string): string | null {
  const fast = fastInternationalMsisdn(digits);
  return fast !== undefined ? fast : validE164Digits(parsePhoneNumberFromString(`+${digits}`));
}

function normalizeNational(digits: string, country: CountryCode): string | null {
  const fast = fastNationalMsisdn(digits, country);
  return fast !== undefined ? fast : validE164Digits(parsePhoneNumberFromString(digits, country));
}

function validE164Digits(phone: ReturnType<typeof parsePhoneNumberFromString>): string | null {
  return phone?.isValid() ? phone.number.slice(1) : null;
}
