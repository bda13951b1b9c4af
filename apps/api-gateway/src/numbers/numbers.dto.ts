import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { CARRIER_ID_PATTERN } from '@seed/sms-batch-contracts';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsOptional, IsString, Length, Matches, MaxLength } from 'class-validator';

/*
 * The body of `PUT /admin/v1/numbers/{number}`: the whole assignment, so an omitted (or null)
 * optional field clears what was stored. What a decorator cannot say (the URL's parts) is checked
 * in number-request.validation.ts. Each field's type check is its last decorator: class-validator
 * runs them bottom up and reports the first failure, so a wrong type is named as such.
 */

/** Account and sub-account ids as the admin API creates them (admin.dto.ts). */
export const ACCOUNT_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{1,62}$/;
export const WEBHOOK_URL_MAX = 2048;
/** Three concatenated GSM-7 parts (153 characters each): a HELP answer never costs more than that. */
export const HELP_TEXT_MAX = 459;

const ID_MESSAGE = '$property must be 2-63 characters of letters, digits, _ and -, starting with a letter or digit';
const HELP_TEXT_MESSAGE = `$property must be 1-${HELP_TEXT_MAX} characters, not only spaces, or null`;

@ApiSchema({ name: 'PutNumberRequest', description: 'Which sub-account a number belongs to. Omitted optional fields are stored as null.' })
export class PutNumberDto {
  @ApiProperty({ type: 'string', pattern: ACCOUNT_ID.source, description: 'The account of the sub-account; it must exist (else 404).', example: 'acme' })
  @Matches(ACCOUNT_ID, { message: ID_MESSAGE })
  @IsString({ message: '$property is required: a string' })
  accountId!: string;

  @ApiProperty({
    type: 'string',
    pattern: ACCOUNT_ID.source,
    description: 'The sub-account that receives what is sent to the number; one of the account\'s own (else 404). A number already assigned moves to it.',
    example: 'acme_hq',
  })
  @Matches(ACCOUNT_ID, { message: ID_MESSAGE })
  @IsString({ message: '$property is required: a string' })
  subAccountId!: string;

  @ApiPropertyOptional({
    type: 'string',
    format: 'uri',
    maxLength: WEBHOOK_URL_MAX,
    nullable: true,
    description:
      "Where inbound SMS to this number are posted: an absolute http(s) URL with a host and no credentials. Null or absent: the account's default callback URL. " +
      'Which addresses it may reach is decided at each delivery, as for delivery-status webhooks.',
    example: 'https://hooks.acme.example/inbound',
  })
  @IsOptional()
  @MaxLength(WEBHOOK_URL_MAX, { message: `$property must be at most ${WEBHOOK_URL_MAX} characters` })
  @IsString({ message: '$property must be a string (an http or https URL), or null' })
  inboundWebhookUrl?: string | null;

  @ApiPropertyOptional({
    type: 'string',
    minLength: 1,
    maxLength: HELP_TEXT_MAX,
    nullable: true,
    description: `Sent back to a recipient who texts HELP or INFO to this number; at most ${HELP_TEXT_MAX} characters (three GSM-7 parts). Null or absent: no answer.`,
    example: 'Acme alerts: reply STOP to opt out. Help: support@acme.example',
  })
  @IsOptional()
  @Matches(/\S/, { message: HELP_TEXT_MESSAGE })
  // Length counts a character outside the BMP (an emoji) once, as a recipient sees it.
  @Length(1, HELP_TEXT_MAX, { message: HELP_TEXT_MESSAGE })
  @IsString({ message: HELP_TEXT_MESSAGE })
  helpText?: string | null;

  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'string', pattern: CARRIER_ID_PATTERN.source },
    minItems: 1,
    maxItems: 50,
    nullable: true,
    description:
      'The carriers (ids of GET /admin/v1/carriers) that may deliver inbound SMS to this number. Null or absent: every carrier of the routes that match the number. ' +
      'An inbound SMS from any other carrier is recorded, marked unboundCarrier, and not acted on: not posted, no opt-out or opt-in, no HELP answer.',
    example: ['carrier-a'],
  })
  @IsOptional()
  @Matches(CARRIER_ID_PATTERN, { each: true, message: '$property must hold carrier ids (1-40 lower-case letters, digits and -)' })
  @ArrayMaxSize(50, { message: '$property must hold at most 50 carrier ids' })
  @ArrayMinSize(1, { message: '$property must hold at least one carrier id, or be null' })
  @IsArray({ message: '$property must be a list of carrier ids, or null' })
  carriers?: string[] | null;
}
