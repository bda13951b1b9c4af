import { getCountries, getCountryCallingCode, parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { normalizeMsisdn } from '../msisdn';

/** SMPP type of number (SMPP 3.4, 5.2.5). */
const TON_UNKNOWN = 0;
const TON_INTERNATIONAL = 1;
const TON_NATIONAL = 2;

/**
 * The sender of an inbound message as E.164 digits when its number can be read as one, so that a
 * STOP from a handset matches the destination of the messages sent to it: international as given
 * (a `+` dropped); national (TON 2, or an unknown TON with a trunk prefix `0`) in the country of
 * the number it was sent to (`07700 900123` to a UK number is 447700900123); `00`/`+` forms of an
 * unknown TON as international. Anything else (an alphanumeric sender, a short code, a number
 * no plan knows) stays as the carrier gave it.
 */
export function inboundSender(sourceAddr: string, ton: number, destination: string): string {
  const given = sourceAddr.trim();
  if (ton === TON_INTERNATIONAL) return normalizeMsisdn(`+${given.replace(/^\+/, '')}`) ?? given;
  const national = ton === TON_NATIONAL || (ton === TON_UNKNOWN && /^0[1-9]/.test(given));
  if (national) {
    const country = countryOfNumber(normalizeMsisdn(destination) ?? destination);
    return (country ? normalizeMsisdn(given, country) : null) ?? given;
  }
  if (ton === TON_UNKNOWN && /^(\+|00)[1-9]/.test(given)) return normalizeMsisdn(given.replace(/^00/, '+')) ?? given;
  return given;
}

/**
 * The country of one of the platform's numbers: by its numbering plan, or (a number the plan does
 * not place, as test ranges) the first country of its calling code, which shares the code's
 * national format (GB for 44, a NANP country for 1).
 */
function countryOfNumber(digits: string): string | null {
  const parsed = parsePhoneNumberFromString(`+${digits.replace(/^\+/, '')}`);
  if (!parsed) return null;
  return parsed.country ?? getCountries().find((country) => getCountryCallingCode(country) === parsed.countryCallingCode) ?? null;
}
