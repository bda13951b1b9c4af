import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import { ApiErrorCode } from '@seed/contracts';
import { ApiError } from '../http/api-error';
import { RequestRateLimits } from '../rate-limit/request-rate-limits';
import { AccountsRepository } from './accounts.repository';

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
    const key = bearerToken(req);
    if (!key) throw ApiError.unauthorized('missing API key: send Authorization: Bearer <API_KEY>');
    const subAccountId = typeof req.params['subAccountId'] === 'string' ? req.params['subAccountId'] : null;
    // Only ids the admin API could have created are looked up (a NUL byte would fail in Postgres).
    const lookup = subAccountId !== null && !SUB_ACCOUNT_ID.test(subAccountId) ? '' : subAccountId;
    if (!/^[\x21-\x7e]{1,200}$/.test(key)) throw ApiError.unauthorized('unknown or revoked API key');
    const access = await this.accounts.accessOf(key, lookup);
    if (!access) throw ApiError.unauthorized('unknown or revoked API key');
    if (subAccountId !== null && !access.ownsSubAccount) {
      throw new ApiError(403, ApiErrorCode.IllegalSubAccount, `sub-account ${subAccountId} is not available to this API key`);
    }
    await this.limits.admit(subAccountId ?? `${access.accountId}_hq`, access.requestsPerSecond);
    req.accountId = access.accountId;
    return true;
  }
}
