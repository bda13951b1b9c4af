import { isSupportedCountry, parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js/max';

const SEPARATORS = /[\s\-.()]/g;
/** After separators are gone only digits may remain, after an optional `+` or `00`. */
const DIALLABLE = /^(\+|00)?([0-9]{1,20})$/;

export function isSupportedCountryCode(country: string): country is CountryCode {
  return /^[A-Z]{2}$/.test(country) && isSupportedCountry(country);
}

/**
 * E.164 digits without `+` of a valid number (real numbering plans), else null, read as sms-batch
 * reads destinations: `+44…`, `0044…` and bare `44…` are international; with `country`, bare
 * digits are first read as a national number of that country. A national number without
 * `country` is not valid.
 */
export function verifyMsisdn(destination: string, country?: CountryCode): string | null {
  const match = DIALLABLE.exec(destination.replace(SEPARATORS, ''));
  const digits = match?.[2];
  if (digits === undefined) return null;
  const international = () => valid(parsePhoneNumberFromString(`+${digits}`));
  if (match?.[1] !== undefined || country === undefined) return international();
  return valid(parsePhoneNumberFromString(digits, country)) ?? international();
}

function valid(phone: ReturnType<typeof parsePhoneNumberFromString>): string | null {
  return phone?.isValid() ? phone.number.slice(1) : null;
}
