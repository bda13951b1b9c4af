import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { IsInt, IsString, Matches, Max, Min, ValidateIf } from 'class-validator';

const ID = /^[A-Za-z0-9][A-Za-z0-9_-]{1,62}$/;
const ID_MESSAGE = '$property must be 2-63 characters of letters, digits, _ and -, starting with a letter or digit';

@ApiSchema({ name: 'CreateAccountRequest' })
export class CreateAccountDto {
  @ApiProperty({ type: 'string', pattern: ID.source, example: 'acme' })
  @IsString()
  @Matches(ID, { message: ID_MESSAGE })
  accountId!: string;
}

@ApiSchema({ name: 'CreateSubAccountRequest' })
export class CreateSubAccountDto {
  @ApiProperty({ type: 'string', pattern: ID.source, description: 'Unique across accounts; not ending in `_hq`.', example: 'acme_eu' })
  @IsString()
  @Matches(ID, { message: ID_MESSAGE })
  subAccountId!: string;
}

/** `PUT .../rate-limit`: the account's own requests per second per sub-account; null restores the default. */
@ApiSchema({ name: 'SetRateLimitRequest' })
export class SetRateLimitDto {
  @ApiProperty({ type: 'integer', minimum: 1, maximum: 1_000_000, nullable: true, description: 'Requests per second per sub-account; null: the default.', example: 500 })
  @ValidateIf((dto: SetRateLimitDto) => dto.requestsPerSecond !== null)
  @IsInt({ message: '$property must be an integer from 1 to 1000000, or null for the default' })
  @Min(1, { message: '$property must be an integer from 1 to 1000000, or null for the default' })
  @Max(1_000_000, { message: '$property must be an integer from 1 to 1000000, or null for the default' })
  requestsPerSecond!: number | null;
}
