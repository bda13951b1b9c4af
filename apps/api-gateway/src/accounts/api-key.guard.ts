import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import { ApiErrorCode } from '@seed/contracts';
import { ApiError } from '../http/api-error';
import { RequestRateLimits } from '../rate-limit/request-rate-limits';
import { AccountsRepository } from './accounts.repository';
import { isWellFormedApiKey } from './api-key';

const SUB_ACCOUNT_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{1,62}$/;

export interface AuthenticatedRequest extends Request {
  accountId: string;
}

export function bearerToken(req: Request): string | null {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
  return match?.[1] ?? null;
}

/**
 * `Authorization: Bearer <API_KEY>` on the public listeners. A key acts for its own account only:
 * a sub-account in the path that is not the account's — another account's or one that does not
 * exist, which are answered alike so ids cannot be probed — is refused with 403. An admitted
 * request counts against its sub-account's rate limit: the one in the path, else (the agent API's
 * paths name none) the account's default `<accountId>_hq`.
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly accounts: AccountsRepository,
    private readonly limits: RequestRateLimits,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<AuthenticatedRequest>();
    // Admitted before its body was read (api-key-first.middleware.ts): counted once, not twice.
    if (admitted.has(req)) return true;
    await this.authenticate(req, typeof req.params['subAccountId'] === 'string' ? req.params['subAccountId'] : null);
    return true;
  }

  /**
   * Admits the request for `subAccountId` (null: the agent API's paths, which name none) or throws
   * the contract's 401, 403 or 429; on admission sets `req.accountId`.
   */
  async authenticate(req: Request, subAccountId: string | null): Promise<void> {
    const key = bearerToken(req);
    if (!key) throw ApiError.unauthorized('missing API key: send Authorization: Bearer <API_KEY>');
    // Only ids the admin API could have created are looked up (a NUL byte would fail in Postgres).
    const lookup = subAccountId !== null && !SUB_ACCOUNT_ID.test(subAccountId) ? '' : subAccountId;
    // Only keys of the form the gateway issues are looked up: garbage costs no database round trip.
    if (!isWellFormedApiKey(key)) throw ApiError.unauthorized('unknown or revoked API key');
    const access = await this.accounts.accessOf(key, lookup);
    if (!access) throw ApiError.unauthorized('unknown or revoked API key');
    if (subAccountId !== null && !access.ownsSubAccount) {
      throw new ApiError(403, ApiErrorCode.IllegalSubAccount, `sub-account ${subAccountId} is not available to this API key`);
    }
    await this.limits.admit(subAccountId ?? `${access.accountId}_hq`, access.requestsPerSecond);
    (req as AuthenticatedRequest).accountId = access.accountId;
    admitted.add(req);
  }
}

/** Requests already admitted for their path's sub-account. */
const admitted = new WeakSet<Request>();
