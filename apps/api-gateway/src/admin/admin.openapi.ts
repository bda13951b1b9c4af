import { applyDecorators } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiParam, ApiProperty, ApiSchema } from '@nestjs/swagger';
import { ApiErrorCode } from '@seed/contracts';
import { ApiErrorResponses, type ErrorCase } from '../openapi/api-error.openapi';
import { ApiJsonBody, ApiJsonBodyErrors } from '../openapi/api-json-body.openapi';
import { CreateAccountDto, CreateSubAccountDto, SetRateLimitDto } from './admin.dto';

@ApiSchema({ name: 'CreatedAccount', description: 'The new account, its default sub-account and its first API key.' })
export class CreatedAccountSchema {
  @ApiProperty({ type: 'string' })
  accountId!: string;

  @ApiProperty({ type: 'string', isArray: true, description: '`<accountId>_hq`.' })
  subAccountIds!: string[];

  @ApiProperty({ type: 'string', description: 'Shown only in this answer: the platform keeps only its SHA-256 hash.' })
  apiKey!: string;

  @ApiProperty({ type: 'string', description: 'Names the key, e.g. to revoke it.' })
  apiKeyId!: string;
}

@ApiSchema({ name: 'Account' })
export class AccountSchema {
  @ApiProperty({ type: 'string' })
  accountId!: string;

  @ApiProperty({ type: 'string', isArray: true, description: 'Oldest first; `<accountId>_hq` is always there.' })
  subAccountIds!: string[];
}

@ApiSchema({ name: 'CreatedSubAccount' })
export class CreatedSubAccountSchema {
  @ApiProperty({ type: 'string' })
  accountId!: string;

  @ApiProperty({ type: 'string' })
  subAccountId!: string;
}

@ApiSchema({ name: 'CreatedApiKey' })
export class CreatedApiKeySchema {
  @ApiProperty({ type: 'string', description: 'Shown only in this answer.' })
  apiKey!: string;

  @ApiProperty({ type: 'string' })
  apiKeyId!: string;
}

@ApiSchema({ name: 'RateLimit', description: "The request rate each of the account's sub-accounts is held to." })
export class RateLimitSchema {
  @ApiProperty({ type: 'string' })
  accountId!: string;

  @ApiProperty({ type: 'integer', minimum: 1, description: 'Requests per second per sub-account on the messaging and agent APIs.' })
  requestsPerSecond!: number;

  @ApiProperty({ type: 'boolean', description: "true: the gateway's RATE_LIMIT_PER_SECOND, the account has no limit of its own." })
  isDefault!: boolean;
}

const NO_ACCOUNT: ErrorCase = { description: 'No such account.', examples: { noAccount: { code: ApiErrorCode.NotFound, message: 'account acme does not exist' } } };
const ID_REFUSED = { code: ApiErrorCode.InvalidParameter, message: 'accountId must be 2-63 characters of letters, digits, _ and -, starting with a letter or digit' };
const API_KEY = 'sk_Jm0v9yQ3EXAMPLEaW1c5T2pXr8dLk4Hs7Nq6Fb0Zu3Y';

export const CreateAccountDocs = () =>
  applyDecorators(
    ApiOperation({ operationId: 'createAccount', summary: 'Create an account', description: 'With its default sub-account `<accountId>_hq` and a first API key.' }),
    ApiJsonBody({
      type: CreateAccountDto,
      examples: { acme: { summary: 'Account acme', value: { accountId: 'acme' } } },
      refusals: { description: '`accountId` missing or not 2-63 of letters, digits, _ and -, starting with a letter or digit (1000).', examples: { badId: ID_REFUSED } },
    }),
    ApiCreatedResponse({ type: CreatedAccountSchema, description: 'Created.', example: { accountId: 'acme', subAccountIds: ['acme_hq'], apiKey: API_KEY, apiKeyId: 'key_4f1d2c3b5a697887' } }),
    ApiErrorResponses({
      409: { description: 'An account with this id exists already.', examples: { exists: { code: ApiErrorCode.InvalidParameter, message: 'an account or sub-account with this id already exists' } } },
    }),
  );

export const GetAccountDocs = () =>
  applyDecorators(
    ApiOperation({ operationId: 'getAccount', summary: 'Read an account', description: 'Its sub-accounts; keys are never shown again.' }),
    ApiOkResponse({ type: AccountSchema, description: 'The account.', example: { accountId: 'acme', subAccountIds: ['acme_hq', 'acme_eu'] } }),
    ApiErrorResponses({ 404: NO_ACCOUNT }),
  );

export const CreateSubAccountDocs = () =>
  applyDecorators(
    ApiOperation({ operationId: 'createSubAccount', summary: 'Add a sub-account', description: 'Ids ending in `_hq` are reserved for the default sub-account of each account.' }),
    ApiJsonBody({
      type: CreateSubAccountDto,
      examples: { eu: { summary: 'Sub-account acme_eu', value: { subAccountId: 'acme_eu' } } },
      refusals: {
        description: '`subAccountId` missing, not 2-63 of letters, digits, _ and -, or a new id ending in `_hq` (1000).',
        examples: { reserved: { code: ApiErrorCode.InvalidParameter, message: 'sub-account ids ending in _hq are reserved for the default sub-account of each account' } },
      },
    }),
    ApiCreatedResponse({ type: CreatedSubAccountSchema, description: 'Created.', example: { accountId: 'acme', subAccountId: 'acme_eu' } }),
    ApiErrorResponses({
      404: NO_ACCOUNT,
      409: { description: 'A sub-account with this id exists already (in any account).', examples: { exists: { code: ApiErrorCode.InvalidParameter, message: 'an account or sub-account with this id already exists' } } },
    }),
  );

export const CreateApiKeyDocs = () =>
  applyDecorators(
    ApiOperation({ operationId: 'createApiKey', summary: 'Create an API key', description: 'The key is shown only in this answer.' }),
    ApiCreatedResponse({ type: CreatedApiKeySchema, description: 'Created.', example: { apiKey: API_KEY, apiKeyId: 'key_4f1d2c3b5a697887' } }),
    ApiJsonBodyErrors(),
    ApiErrorResponses({ 404: NO_ACCOUNT }),
  );

export const RevokeApiKeyDocs = () =>
  applyDecorators(
    ApiOperation({ operationId: 'revokeApiKey', summary: 'Revoke an API key', description: 'It is refused from the next request on.' }),
    ApiParam({ name: 'apiKeyId', description: 'The `apiKeyId` the key was created with.', schema: { type: 'string', example: 'key_4f1d2c3b5a697887' } }),
    ApiNoContentResponse({ description: 'Revoked.' }),
    ApiErrorResponses({
      404: { description: 'No active key with this id in the account.', examples: { noKey: { code: ApiErrorCode.NotFound, message: 'no active API key key_4f1d2c3b5a697887 in account acme' } } },
    }),
  );

const RATE_LIMIT_EXAMPLE = { accountId: 'acme', requestsPerSecond: 500, isDefault: false };

export const GetRateLimitDocs = () =>
  applyDecorators(
    ApiOperation({ operationId: 'getRateLimit', summary: "Read the account's request rate limit" }),
    ApiOkResponse({ type: RateLimitSchema, description: 'The limit in force.', example: RATE_LIMIT_EXAMPLE }),
    ApiErrorResponses({ 404: NO_ACCOUNT }),
  );

export const SetRateLimitDocs = () =>
  applyDecorators(
    ApiOperation({
      operationId: 'setRateLimit',
      summary: "Set the account's request rate limit",
      description: 'Every sub-account of the account is held to it from its next request on; null restores the default.',
    }),
    ApiJsonBody({
      type: SetRateLimitDto,
      examples: { own: { summary: 'A limit of its own', value: { requestsPerSecond: 500 } }, reset: { summary: 'Back to the default', value: { requestsPerSecond: null } } },
      refusals: {
        description: '`requestsPerSecond` missing, or neither an integer from 1 to 1,000,000 nor null (1000).',
        examples: { outOfRange: { code: ApiErrorCode.InvalidParameter, message: 'requestsPerSecond must be an integer from 1 to 1000000, or null for the default' } },
      },
    }),
    ApiOkResponse({ type: RateLimitSchema, description: 'The limit in force now.', example: RATE_LIMIT_EXAMPLE }),
    ApiErrorResponses({ 404: NO_ACCOUNT }),
  );
