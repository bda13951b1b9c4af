import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import { ApiErrorCode } from '@seed/contracts';
import { ApiError } from '../http/api-error';
import { AccountsRepository } from './accounts.repository';

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
 * exist, which are answered alike so ids cannot be probed — is refused with 403.
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(private readonly accounts: AccountsRepository) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const key = bearerToken(req);
    if (!key) throw ApiError.unauthorized('missing API key: send Authorization: Bearer <API_KEY>');
    const subAccountId = typeof req.params['subAccountId'] === 'string' ? req.params['subAccountId'] : null;
    const access = await this.accounts.accessOf(key, subAccountId);
    if (!access) throw ApiError.unauthorized('unknown or revoked API key');
    if (subAccountId !== null && !access.ownsSubAccount) {
      throw new ApiError(403, ApiErrorCode.IllegalSubAccount, `sub-account ${subAccountId} is not available to this API key`);
    }
    req.accountId = access.accountId;
    return true;
  }
}
