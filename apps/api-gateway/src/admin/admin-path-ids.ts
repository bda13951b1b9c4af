import { Injectable, type PipeTransform } from '@nestjs/common';
import { ApiError } from '../http/api-error';

/** What the admin API can have created: account ids (admin.dto.ts) and API key ids (api-key.ts). */
const ACCOUNT_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{1,62}$/;
const API_KEY_ID = /^key_[0-9a-f]{16}$/;

/**
 * A path id no account or key could have is answered 404 without a lookup: a NUL byte (`%00`) would
 * otherwise fail in PostgreSQL and come back as a 500.
 */
@Injectable()
export class AccountIdPipe implements PipeTransform<string, string> {
  transform(accountId: string): string {
    if (!ACCOUNT_ID.test(accountId)) throw ApiError.notFound(`account ${JSON.stringify(accountId)} does not exist`);
    return accountId;
  }
}

@Injectable()
export class ApiKeyIdPipe implements PipeTransform<string, string> {
  transform(apiKeyId: string): string {
    if (!API_KEY_ID.test(apiKeyId)) throw ApiError.notFound(`no active API key ${JSON.stringify(apiKeyId)}`);
    return apiKeyId;
  }
}
