import { IsInt, IsString, Matches, Max, Min, ValidateIf } from 'class-validator';

const ID = /^[A-Za-z0-9][A-Za-z0-9_-]{1,62}$/;
const ID_MESSAGE = '$property must be 2-63 characters of letters, digits, _ and -, starting with a letter or digit';

export class CreateAccountDto {
  @IsString()
  @Matches(ID, { message: ID_MESSAGE })
  accountId!: string;
}

export class CreateSubAccountDto {
  @IsString()
  @Matches(ID, { message: ID_MESSAGE })
  subAccountId!: string;
}

/** `PUT .../rate-limit`: the account's own requests per second per sub-account; null restores the default. */
export class SetRateLimitDto {
  @ValidateIf((dto: SetRateLimitDto) => dto.requestsPerSecond !== null)
  @IsInt({ message: '$property must be an integer from 1 to 1000000, or null for the default' })
  @Min(1, { message: '$property must be an integer from 1 to 1000000, or null for the default' })
  @Max(1_000_000, { message: '$property must be an integer from 1 to 1000000, or null for the default' })
  requestsPerSecond!: number | null;
}
