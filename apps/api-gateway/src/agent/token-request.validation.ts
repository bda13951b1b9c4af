import { ApiErrorCode } from '@seed/contracts';
import type { CreateAgentTokenData } from '@seed/agent-token-contracts';
import { ApiError } from '../http/api-error';
import { toE164 } from './phone-number';

/** The contract's 8..20 with the product's alphabet (product-decisions.md). */
const CALL_REFERENCE = /^[A-Za-z0-9_-]{8,20}$/;

/**
 * `POST /api/v1/tokens`: the body may be absent or empty (`{}`); every field is optional and
 * `null` counts as absent. A malformed value is a 400 even where it would not be used (a
 * call_reference without create_room). Unknown fields are ignored.
 */
export function toCreateAgentTokenData(body: unknown, accountId: string): CreateAgentTokenData {
  if (body === undefined) return { accountId, subAccountId: hq(accountId), createRoom: false };
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw ApiError.badRequest('request body must be a JSON object');
  const fields = body as Record<string, unknown>;
  const createRoom = fields['create_room'] ?? undefined;
  const callReference = fields['call_reference'] ?? undefined;
  const phoneNumber = fields['phone_number'] ?? undefined;

  if (createRoom !== undefined && typeof createRoom !== 'boolean') throw ApiError.badRequest('create_room must be a boolean');
  if (callReference !== undefined && (typeof callReference !== 'string' || !CALL_REFERENCE.test(callReference))) {
    throw ApiError.badRequest('call_reference must be 8 to 20 characters of A-Z, a-z, 0-9, _ and -');
  }
  let e164: string | undefined;
  if (phoneNumber !== undefined) {
    e164 = typeof phoneNumber === 'string' ? (toE164(phoneNumber) ?? undefined) : undefined;
    if (e164 === undefined) throw ApiError.badRequest('phone_number must be an international phone number (E.164)', ApiErrorCode.InvalidMsisdn);
  }
  // Rule 1 of the contract: without create_room true, no room; the other fields are then unused.
  if (createRoom !== true) return { accountId, subAccountId: hq(accountId), createRoom: false };
  return {
    accountId,
    subAccountId: hq(accountId),
    createRoom: true,
    ...(callReference !== undefined ? { callReference: callReference as string } : {}),
    ...(e164 !== undefined ? { phoneNumber: e164 } : {}),
  };
}

/** Token creation has no sub-account in its path: the guest-link SMS goes out from the account's default one. */
const hq = (accountId: string): string => `${accountId}_hq`;
