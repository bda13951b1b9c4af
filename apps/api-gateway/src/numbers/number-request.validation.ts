import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { NUMBER_PATTERN, type NumberInput } from '@seed/sms-batch-contracts';
import { callbackUrlProblem } from '@seed/webhook-dispatcher-contracts';
import { ApiError } from '../http/api-error';
import { validateBody } from '../http/validate-body';
import { ACCOUNT_ID, PutNumberDto } from './numbers.dto';

/** What an operator may write for a number in the path: a long number with or without `+`, or a short code. */
export const PATH_NUMBER_PATTERN = '^\\+?[0-9]{3,15}$';

const PATH_NUMBER = new RegExp(PATH_NUMBER_PATTERN);
/** Without `+`, this few digits is a short code: no E.164 number is read into it. */
const SHORT_CODE = /^[0-9]{3,8}$/;
const NUMBER_RULE = 'must be a long number in international form (+447700900123 or 447700900123) or a short code of 3-8 digits';

/**
 * The number as it is stored (NUMBER_PATTERN): a short code as written, a long number as E.164
 * digits without `+` (`+44 0 7700…` written `+4407700900123` is `447700900123`); null when it is neither.
 * A long number need only be possible in its country's numbering plan (calling code and length),
 * not in a range that plan has allocated: an operator's own numbers include ranges such as the UK's
 * 07700 900xxx, kept for tests and drama, that stricter validation (sms-batch's normalizeMsisdn,
 * which outbound destinations pass) refuses. The gateway cannot import sms-batch's domain library
 * (module boundaries), so it reads the number with the same libphonenumber metadata itself.
 */
export function storedNumber(value: string): string | null {
  if (!PATH_NUMBER.test(value)) return null;
  if (SHORT_CODE.test(value)) return value;
  const phone = parsePhoneNumberFromString(value.startsWith('+') ? value : `+${value}`);
  const digits = phone?.isPossible() ? phone.number.slice(1) : null;
  return digits !== null && NUMBER_PATTERN.test(digits) ? digits : null;
}

/** A PUT's number: one that could never be stored is refused before anything is asked. */
export function putNumber(value: string): string {
  const number = storedNumber(value);
  if (number === null) throw ApiError.badRequest(`number ${JSON.stringify(value)} ${NUMBER_RULE}`);
  return number;
}

/** A GET's or DELETE's number: one that could never be stored is not asked about (as for carrier ids). */
export function knownNumber(value: string): string {
  const number = storedNumber(value);
  if (number === null) throw ApiError.notFound(`no number ${JSON.stringify(value)}`);
  return number;
}

/**
 * The body as the command states it. The URL is held to the rules of an account's default callback
 * URL (callbackUrlProblem, the webhook dispatcher's own): those have no address check at
 * configuration time, because a name's addresses change; the dispatcher checks the address it
 * actually connects to at each delivery.
 */
export function numberInput(body: unknown): NumberInput {
  const dto = validateBody(PutNumberDto, body);
  const inboundWebhookUrl = dto.inboundWebhookUrl ?? null;
  if (inboundWebhookUrl !== null) {
    const problem = callbackUrlProblem(inboundWebhookUrl);
    // The shared rule names the account's field; the operator sent this one.
    if (problem) throw ApiError.badRequest(problem.replace(/^dlrCallbackUrl\b/, 'inboundWebhookUrl'));
  }
  return { accountId: dto.accountId, subAccountId: dto.subAccountId, inboundWebhookUrl, helpText: dto.helpText ?? null, carriers: dto.carriers ?? null };
}

/** `?subAccountId=` of the list, or null for every number; given twice it arrives as an array and is refused. */
export function listFilter(query: unknown): string | null {
  const subAccountId = ((query ?? {}) as Record<string, unknown>)['subAccountId'];
  if (subAccountId === undefined) return null;
  if (typeof subAccountId !== 'string' || !ACCOUNT_ID.test(subAccountId)) {
    throw ApiError.badRequest('subAccountId must be a sub-account id (2-63 characters of letters, digits, _ and -), given once');
  }
  return subAccountId;
}
