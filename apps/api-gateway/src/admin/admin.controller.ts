import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, UseGuards } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { ApiErrorCode } from '@seed/contracts';
import { AccountsRepository, DuplicateError, UnknownAccountError } from '../accounts/accounts.repository';
import { ApiError } from '../http/api-error';
import { validateBody } from '../http/validate-body';
import { AccountParam } from '../openapi/path-params.openapi';
import { AdminTokenProtected } from '../openapi/protected-by.openapi';
import { AccountIdPipe, ApiKeyIdPipe } from './admin-path-ids';
import { AdminTokenGuard } from './admin-token.guard';
import { GatewayConfig } from '../gateway.config';
import { CreateAccountDto, CreateSubAccountDto, SetRateLimitDto } from './admin.dto';
import {
  CreateAccountDocs,
  CreateApiKeyDocs,
  CreateSubAccountDocs,
  GetAccountDocs,
  GetRateLimitDocs,
  RevokeApiKeyDocs,
  SetRateLimitDocs,
} from './admin.openapi';

/** What the rate-limit routes answer: the limit in force, and whether it is the account's own. */
export interface RateLimitView {
  accountId: string;
  requestsPerSecond: number;
  isDefault: boolean;
}

/** The operator's "account dashboard": accounts, sub-accounts and API keys. */
@Controller('admin/v1/accounts')
@UseGuards(AdminTokenGuard)
@ApiTags('Accounts')
@AdminTokenProtected()
export class AdminController {
  constructor(
    private readonly accounts: AccountsRepository,
    private readonly config: GatewayConfig,
  ) {}

  @Post()
  @CreateAccountDocs()
  async createAccount(@Body() body: unknown) {
    const { accountId } = validateBody(CreateAccountDto, body);
    const created = await this.mapErrors(() => this.accounts.createAccount(accountId));
    return { accountId, subAccountIds: [created.subAccountId], apiKey: created.key.apiKey, apiKeyId: created.key.apiKeyId };
  }

  @Get(':accountId')
  @GetAccountDocs()
  @AccountParam()
  async getAccount(@Param('accountId', AccountIdPipe) accountId: string) {
    const subAccountIds = await this.accounts.subAccountsOf(accountId);
    if (subAccountIds.length === 0) throw ApiError.notFound(`account ${accountId} does not exist`);
    return { accountId, subAccountIds };
  }

  @Post(':accountId/sub-accounts')
  @CreateSubAccountDocs()
  @AccountParam()
  async createSubAccount(@Param('accountId', AccountIdPipe) accountId: string, @Body() body: unknown) {
    const { subAccountId } = validateBody(CreateSubAccountDto, body);
    // `<id>_hq` is every account's default sub-account; another account taking `x_hq` would
    // make account `x` impossible to create later.
    if (subAccountId.endsWith('_hq') && !(await this.accounts.subAccountExists(subAccountId))) {
      throw ApiError.badRequest('sub-account ids ending in _hq are reserved for the default sub-account of each account');
    }
    await this.mapErrors(() => this.accounts.addSubAccount(accountId, subAccountId));
    return { accountId, subAccountId };
  }

  @Post(':accountId/api-keys')
  @CreateApiKeyDocs()
  @AccountParam()
  async createApiKey(@Param('accountId', AccountIdPipe) accountId: string) {
    const key = await this.mapErrors(() => this.accounts.createApiKey(accountId));
    return { apiKey: key.apiKey, apiKeyId: key.apiKeyId };
  }

  @Delete(':accountId/api-keys/:apiKeyId')
  @HttpCode(204)
  @RevokeApiKeyDocs()
  @AccountParam()
  async revokeApiKey(@Param('accountId', AccountIdPipe) accountId: string, @Param('apiKeyId', ApiKeyIdPipe) apiKeyId: string): Promise<void> {
    if (!(await this.accounts.revokeApiKey(accountId, apiKeyId))) {
      throw ApiError.notFound(`no active API key ${apiKeyId} in account ${accountId}`);
    }
  }

  @Get(':accountId/rate-limit')
  @GetRateLimitDocs()
  @AccountParam()
  async getRateLimit(@Param('accountId', AccountIdPipe) accountId: string): Promise<RateLimitView> {
    const own = await this.accounts.rateLimitOf(accountId);
    if (own === undefined) throw ApiError.notFound(`account ${accountId} does not exist`);
    return this.rateLimitView(accountId, own);
  }

  /** Every sub-account of the account gets this limit, from its next request on (it is read with the API key). */
  @Put(':accountId/rate-limit')
  @SetRateLimitDocs()
  @AccountParam()
  async setRateLimit(@Param('accountId', AccountIdPipe) accountId: string, @Body() body: unknown): Promise<RateLimitView> {
    const { requestsPerSecond } = validateBody(SetRateLimitDto, body);
    if (!(await this.accounts.setRateLimit(accountId, requestsPerSecond))) throw ApiError.notFound(`account ${accountId} does not exist`);
    return this.rateLimitView(accountId, requestsPerSecond);
  }

  private rateLimitView(accountId: string, own: number | null): RateLimitView {
    return { accountId, requestsPerSecond: own ?? this.config.RATE_LIMIT_PER_SECOND, isDefault: own === null };
  }

  private async mapErrors<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof DuplicateError) throw new ApiError(409, ApiErrorCode.InvalidParameter, 'an account or sub-account with this id already exists');
      if (error instanceof UnknownAccountError) throw ApiError.notFound(error.message);
      throw error;
    }
  }
}
