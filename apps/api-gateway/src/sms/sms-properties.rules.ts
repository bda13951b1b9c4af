import { isSupportedCountry } from 'libphonenumber-js';
import isISO8601 from 'validator/lib/isISO8601';
import isURL from 'validator/lib/isURL';
import { ApiErrorCode } from '@seed/contracts';
import { callbackUrlProblem } from '@seed/webhook-dispatcher-contracts';
import { ApiError } from '../http/api-error';

type Rule = { code: number; message: string; valid: (value: unknown) => boolean };

const isString = (v: unknown): v is string => typeof v === 'string';
// ISO 8601 also admits forms Date cannot read (week and ordinal dates, basic format, decimal
// commas); those would fail later as a 500, so they are refused here like any other bad date.
// A time without a zone would be read in the server's own zone, so it is refused as ambiguous.
const ZONE = /(Z|[+-]\d{2}(:?\d{2})?)$/i;
const iso = (v: unknown) =>
  isString(v) &&
  isISO8601(v, { strict: true, strictSeparator: true }) &&
  !Number.isNaN(Date.parse(v)) &&
  (!v.includes('T') || ZONE.test(v));

/**
 * Type rules of the template and of each of up to 10,000 items. Checked by plain functions rather
 * than class-validator decorators: per item they are ~50x cheaper, which is a third of the
 * latency budget of a 10,000-message batch. The checks themselves are validator.js's, as
 * class-validator's are.
 */
const COMMON: Record<string, Rule> = {
  text: { code: ApiErrorCode.InvalidText, message: 'must be a string', valid: isString },
  source: { code: ApiErrorCode.InvalidSource, message: 'must be a string', valid: isString },
  encoding: {
    code: ApiErrorCode.InvalidEncoding,
    message: 'must be AUTO, GSM7 or UCS2',
    valid: (v) => v === 'AUTO' || v === 'GSM7' || v === 'UCS2',
  },
  scheduled: { code: ApiErrorCode.InvalidScheduleTime, message: 'must be an ISO 8601 date-time with a time zone', valid: iso },
  expiry: { code: ApiErrorCode.InvalidExpiry, message: 'must be an ISO 8601 date-time with a time zone', valid: iso },
  dlrCallbackUrl: {
    code: ApiErrorCode.InvalidParameter,
    message: 'must be an http(s) URL without credentials, at most 2048 characters',
    // The dispatcher's own rule too: a URL it would refuse is refused here, not silently dropped later.
    valid: (v) => isString(v) && isURL(v, { protocols: ['http', 'https'], require_protocol: true, require_tld: false }) && callbackUrlProblem(v) === null,
  },
};

const ITEM: Record<string, Rule> = {
  ...COMMON,
  // Absent: that message alone is rejected ("Invalid MSISDN format"); not a string: the request is.
  destination: { code: ApiErrorCode.InvalidMsisdn, message: 'must be a string', valid: isString },
  country: {
    code: ApiErrorCode.InvalidCountryCode,
    message: 'must be a supported ISO 3166 country code of two capital letters',
    valid: (v) => isString(v) && /^[A-Z]{2}$/.test(v) && isSupportedCountry(v),
  },
  clientMessageId: {
    code: ApiErrorCode.InvalidParameter,
    message: 'must be a string of at most 50 characters',
    valid: (v) => isString(v) && v.length <= 50,
  },
};

export function checkTemplate(template: unknown): void {
  if (template === null || typeof template !== 'object' || Array.isArray(template)) {
    throw new ApiError(400, ApiErrorCode.InvalidTemplate, 'template must be an object');
  }
  check(template as Record<string, unknown>, COMMON, 'template');
}

export function checkItem(item: unknown, index: number): void {
  if (item === null || typeof item !== 'object' || Array.isArray(item)) throw ApiError.badRequest(`messages.${index} must be an object`);
  check(item as Record<string, unknown>, ITEM, `messages.${index}`);
}

function check(target: Record<string, unknown>, rules: Record<string, Rule>, path: string): void {
  for (const field in rules) {
    const value = target[field];
    const rule = rules[field] as Rule;
    // Unknown fields are ignored and null counts as absent, as for the other optional fields.
    if (value !== undefined && value !== null && !rule.valid(value)) throw new ApiError(400, rule.code, `${path}.${field} ${rule.message}`);
  }
}
