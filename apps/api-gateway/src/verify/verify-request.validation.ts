import { ApiErrorCode } from '@seed/contracts';
import {
  BRAND_PLACEHOLDER,
  CODE_PLACEHOLDER,
  VerificationLimits,
  type StartVerificationData,
  type VerificationOptions,
} from '@seed/verification-contracts';
import { ApiError } from '../http/api-error';
import { isSupportedCountryCode, verifyMsisdn } from './verify-msisdn';

type Body = Record<string, unknown>;

/**
 * The shape of a generation request (product-decisions.md): anything wrong is a 400 with the
 * field's code and nothing is started. `null` counts as absent; unknown fields are ignored.
 * Whether the number gets a new code, the same one again, or a 429 is the service's decision.
 */
export function toStartVerificationData(body: unknown, accountId: string, subAccountId: string): StartVerificationData {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw ApiError.badRequest('request body must be a JSON object');
  const b = body as Body;
  const destination = present(b, 'destination');
  if (destination === undefined || destination === '') throw ApiError.badRequest('destination is required', ApiErrorCode.InvalidMsisdn);
  if (typeof destination !== 'string') throw ApiError.badRequest('destination must be a string', ApiErrorCode.InvalidMsisdn);
  const country = present(b, 'country');
  if (country !== undefined && (typeof country !== 'string' || !isSupportedCountryCode(country))) {
    throw ApiError.badRequest('country must be a supported ISO 3166 country code of two capital letters', ApiErrorCode.InvalidCountryCode);
  }
  const msisdn = verifyMsisdn(destination, country);
  if (msisdn === null) {
    throw ApiError.badRequest('destination is not a valid phone number (a national number needs country)', ApiErrorCode.InvalidMsisdn);
  }
  return { accountId, subAccountId, msisdn, ...options(b) };
}

function options(b: Body): VerificationOptions {
  const out: VerificationOptions = {};
  const brand = present(b, 'brand');
  if (brand !== undefined) {
    if (typeof brand !== 'string') throw ApiError.badRequest('brand must be a string');
    if (brand.length > VerificationLimits.brandMaxLength) {
      throw ApiError.badRequest(`brand must be at most ${VerificationLimits.brandMaxLength} characters`, ApiErrorCode.ParameterOutOfRange);
    }
    if (brand !== '') out.brand = brand;
  }
  const template = present(b, 'template');
  if (template !== undefined) {
    const invalid = (why: string) => ApiError.badRequest(`template ${why}`, ApiErrorCode.InvalidTemplate);
    if (typeof template !== 'string') throw invalid('must be a string');
    if (!template.includes(CODE_PLACEHOLDER)) throw invalid(`must contain ${CODE_PLACEHOLDER}`);
    if (template.length > VerificationLimits.templateMaxLength) throw invalid(`must be at most ${VerificationLimits.templateMaxLength} characters`);
    if (template.includes(BRAND_PLACEHOLDER) && out.brand === undefined) throw invalid(`uses ${BRAND_PLACEHOLDER} but no brand is given`);
    out.template = template;
  }
  for (const field of ['codeLength', 'codeValidity', 'resendingInterval'] as const) {
    const value = present(b, field);
    if (value === undefined) continue;
    const { min, max } = VerificationLimits[field];
    if (typeof value !== 'number' || !Number.isInteger(value)) throw ApiError.badRequest(`${field} must be an integer`);
    if (value < min || value > max) throw ApiError.badRequest(`${field} must be between ${min} and ${max}`, ApiErrorCode.ParameterOutOfRange);
    out[field] = value;
  }
  const resetSession = present(b, 'resetSession');
  if (resetSession !== undefined) {
    if (typeof resetSession !== 'boolean') throw ApiError.badRequest('resetSession must be a boolean');
    out.resetSession = resetSession;
  }
  checkTextLength(out);
  return out;
}

/**
 * A template whose text, with every `{brand}` and `{code}` filled in, would not fit in an SMS
 * sms-batch accepts is refused here: accepted, it would be answered WAITING and never sent.
 */
function checkTextLength(options: VerificationOptions): void {
  if (options.template === undefined) return;
  const occurrences = (placeholder: string) => (options.template as string).split(placeholder).length - 1;
  const codeLength = options.codeLength ?? VerificationLimits.codeLength.default;
  const length =
    options.template.length +
    occurrences(CODE_PLACEHOLDER) * (codeLength - CODE_PLACEHOLDER.length) +
    occurrences(BRAND_PLACEHOLDER) * ((options.brand ?? '').length - BRAND_PLACEHOLDER.length);
  if (length > VerificationLimits.textMaxLength) {
    throw ApiError.badRequest(`template with brand and code filled in must be at most ${VerificationLimits.textMaxLength} characters`, ApiErrorCode.InvalidTemplate);
  }
}

const present = (b: Body, field: string): unknown => (b[field] === null ? undefined : b[field]);

const CODE = new RegExp(`^[0-9]{${VerificationLimits.codeLength.min},${VerificationLimits.codeLength.max}}$`);

/**
 * The `code` query parameter: absent (a read), or 4-10 digits. Whether its length is this
 * verification's is for the service to say (400 too).
 */
export function codeParameter(query: unknown): string | undefined {
  const code = (query as Record<string, unknown> | undefined)?.['code'];
  if (code === undefined) return undefined;
  if (typeof code !== 'string' || !CODE.test(code)) {
    throw ApiError.badRequest(`code must be ${VerificationLimits.codeLength.min} to ${VerificationLimits.codeLength.max} digits, given once`);
  }
  return code;
}
