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
  isString(v) && isISO8601(v, { strictSeparator: true }) && isCalendarDate(v) && isStorableInstant(Date.parse(v)) && (!v.includes('T') || ZONE.test(v));

const DATE = /^(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?/;

/**
 * The date exists (no 30 February). validator's own `strict` check reads the years 0000-0099 as
 * 1900-1999 and so refuses every date of them, which RFC 3339 (the documents' `date-time`) allows.
 */
function isCalendarDate(v: string): boolean {
  const [, year, month = '01', day = '01'] = DATE.exec(v) ?? [];
  const date = new Date(0);
  date.setUTCFullYear(Number(year), Number(month) - 1, Number(day));
  return year !== undefined && date.getUTCFullYear() === Number(year) && date.getUTCMonth() === Number(month) - 1 && date.getUTCDate() === Number(day);
}

/** 0001-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z. */
const FIRST_INSTANT = -62_135_596_800_000;
const LAST_INSTANT = 253_402_300_799_999;

/**
 * sms-batch writes instants as `toISOString()` into PostgreSQL timestamps. Outside the years
 * 0001-9999 in UTC (9999-12-31T23:59:59-14:00 is in the year 10000) that is `+010000-...` or
 * year 0, which PostgreSQL refuses: the event would stop sms-batch's read models for everyone.
 */
const isStorableInstant = (ms: number) => ms >= FIRST_INSTANT && ms <= LAST_INSTANT;

const DATE_TIME = 'must be an ISO 8601 date-time with a time zone, in the years 0001 to 9999 (UTC)';

const isCallbackUrl = (v: string) => isURL(v, { protocols: ['http', 'https'], require_protocol: true, require_tld: false }) && callbackUrlProblem(v) === null;
/**
 * The verdict on the last URL checked: a batch's messages mostly carry one URL, and validator's
 * isURL on every message was a visible part of a batch's acceptance
 * (docs/adr/0039-batch-acceptance-without-per-item-copies.md).
 */
let lastUrl: { url: string; ok: boolean } | undefined;
function isCallbackUrlOnce(v: unknown): boolean {
  if (!isString(v)) return false;
  if (lastUrl?.url !== v) lastUrl = { url: v, ok: isCallbackUrl(v) };
  return lastUrl.ok;
}

/**
 * Type rules of the template and of each of up to 10,000 items. Checked by plain functions rather
 * than class-validator decorators, which cost many times more per item on the path of a
 * 10,000-message batch (docs/adr/0039-batch-acceptance-without-per-item-copies.md). The checks themselves are validator.js's, as
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
  scheduled: { code: ApiErrorCode.InvalidScheduleTime, message: DATE_TIME, valid: iso },
  expiry: { code: ApiErrorCode.InvalidExpiry, message: DATE_TIME, valid: iso },
  dlrCallbackUrl: {
    code: ApiErrorCode.InvalidParameter,
    message: 'must be an http(s) URL without credentials, at most 2048 characters',
    // The dispatcher's own rule too: a URL it would refuse is refused here, not silently dropped later.
    valid: isCallbackUrlOnce,
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
