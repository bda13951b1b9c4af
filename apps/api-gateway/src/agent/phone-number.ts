import { parsePhoneNumberFromString } from 'libphonenumber-js/max';

const SEPARATORS = /[\s\-.()]/g;
const INTERNATIONAL = /^(\+|00)?([1-9][0-9]{5,14})$/;

/**
 * An international number as SMS accepts one (sms-batch's rule, without `country`): `+44…`,
 * `0044…` or bare `44…`, separators ignored, valid in the real numbering plan
 * (libphonenumber-js/max). Returns E.164 with `+`, or null.
 */
export function toE164(value: string): string | null {
  const digits = INTERNATIONAL.exec(value.replace(SEPARATORS, ''))?.[2];
  if (digits === undefined) return null;
  const phone = parsePhoneNumberFromString(`+${digits}`);
  return phone?.isValid() ? phone.number : null;
}
