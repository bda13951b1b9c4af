import { ApiParam } from '@nestjs/swagger';

/** Ids as the admin API makes them (admin.dto.ts). */
const ID_PATTERN = '^[A-Za-z0-9][A-Za-z0-9_-]{1,62}$';
const UUID_DESCRIPTION = 'A UUID; anything else is answered 404.';

export const SubAccountParam = () =>
  ApiParam({
    name: 'subAccountId',
    description: "A sub-account of the API key's account (`<accountId>_hq` is every account's default); any other: 403.",
    schema: { type: 'string', pattern: ID_PATTERN, example: 'acme_hq' },
  });

export const AccountParam = () =>
  ApiParam({ name: 'accountId', description: 'The account.', schema: { type: 'string', pattern: ID_PATTERN, example: 'acme' } });

export const UuidParam = (name: string, what: string) =>
  ApiParam({ name, description: `${what}. ${UUID_DESCRIPTION}`, schema: { type: 'string', format: 'uuid', example: '01939a52-4c0e-7f3a-9c57-2b9e6a7b8c01' } });
