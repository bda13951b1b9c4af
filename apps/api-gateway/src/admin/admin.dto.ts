import { IsString, Matches } from 'class-validator';

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
