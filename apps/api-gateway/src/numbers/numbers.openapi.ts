import { applyDecorators } from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiParam, ApiProperty, ApiQuery, ApiSchema } from '@nestjs/swagger';
import { ApiErrorCode } from '@seed/contracts';
import { NUMBER_PATTERN } from '@seed/sms-batch-contracts';
import { ApiErrorResponses, type ErrorCase } from '../openapi/api-error.openapi';
import { ApiJsonBody, ApiJsonBodyErrors } from '../openapi/api-json-body.openapi';
import { PATH_NUMBER_PATTERN } from './number-request.validation';
import { ACCOUNT_ID, HELP_TEXT_MAX, PutNumberDto, WEBHOOK_URL_MAX } from './numbers.dto';

@ApiSchema({ name: 'Number', description: 'A long number or short code and the sub-account it belongs to.' })
export class NumberSchema {
  @ApiProperty({ type: 'string', pattern: NUMBER_PATTERN.source, description: 'E.164 digits without `+` (a long number), or the digits of a short code.' })
  number!: string;

  @ApiProperty({ type: 'string', pattern: ACCOUNT_ID.source })
  accountId!: string;

  @ApiProperty({ type: 'string', pattern: ACCOUNT_ID.source, description: 'Receives the inbound SMS sent to the number, and answers its recipients\' STOP, START and HELP.' })
  subAccountId!: string;

  @ApiProperty({ type: 'string', format: 'uri', maxLength: WEBHOOK_URL_MAX, nullable: true, description: "Where inbound SMS are posted; null: the account's default callback URL." })
  inboundWebhookUrl!: string | null;

  @ApiProperty({ type: 'string', maxLength: HELP_TEXT_MAX, nullable: true, description: 'The answer to HELP or INFO; null: none.' })
  helpText!: string | null;

  @ApiProperty({ type: 'string', format: 'date-time', description: 'When this assignment was stored.' })
  assignedAt!: string;
}

@ApiSchema({ name: 'Numbers' })
export class NumbersSchema {
  @ApiProperty({ type: () => [NumberSchema], description: 'By number.' })
  numbers!: NumberSchema[];
}

const NUMBER_EXAMPLE = {
  number: '447700900123',
  accountId: 'acme',
  subAccountId: 'acme_hq',
  inboundWebhookUrl: 'https://hooks.acme.example/inbound',
  helpText: 'Acme alerts: reply STOP to opt out. Help: support@acme.example',
  assignedAt: '2030-01-15T10:00:00.000Z',
};
const SHORT_CODE_EXAMPLE = { number: '60777', accountId: 'acme', subAccountId: 'acme_marketing', inboundWebhookUrl: null, helpText: null, assignedAt: '2030-01-15T10:05:00.000Z' };

const NumberParam = () =>
  ApiParam({
    name: 'number',
    description:
      'A long number in international form, with or without `+` (`+447700900123` and `447700900123` are the same number), or a short code of 3-8 digits written without `+`. ' +
      'A long number must have the length of a number of its calling code.',
    schema: { type: 'string', pattern: PATH_NUMBER_PATTERN, example: '+447700900123' },
  });

const noNumber: ErrorCase = { description: 'No such number.', examples: { noNumber: { code: ApiErrorCode.NotFound, message: 'no number 447700900123' } } };

export const ListNumbersDocs = () =>
  applyDecorators(
    ApiOperation({ operationId: 'listNumbers', summary: 'List the numbers', description: "Every number, or one sub-account's, by number." }),
    ApiQuery({ name: 'subAccountId', required: false, description: "Only this sub-account's numbers.", schema: { type: 'string', pattern: ACCOUNT_ID.source, example: 'acme_hq' } }),
    ApiOkResponse({ type: NumbersSchema, description: 'The numbers, by number.', example: { numbers: [NUMBER_EXAMPLE, SHORT_CODE_EXAMPLE] } }),
    ApiJsonBodyErrors({
      description: '`subAccountId` is not a sub-account id, or is given twice (1000).',
      examples: { subAccountId: { code: ApiErrorCode.InvalidParameter, message: 'subAccountId must be a sub-account id (2-63 characters of letters, digits, _ and -), given once' } },
    }),
    ApiErrorResponses({ 404: { description: 'The `subAccountId` does not exist.', examples: { noSubAccount: { code: ApiErrorCode.NotFound, message: 'sub-account acme_eu does not exist' } } } }),
  );

export const GetNumberDocs = () =>
  applyDecorators(
    ApiOperation({ operationId: 'getNumber', summary: 'Read a number' }),
    NumberParam(),
    ApiOkResponse({ type: NumberSchema, description: 'The number and its sub-account.', example: NUMBER_EXAMPLE }),
    ApiJsonBodyErrors(),
    ApiErrorResponses({ 404: noNumber }),
  );

export const PutNumberDocs = () =>
  applyDecorators(
    ApiOperation({
      operationId: 'putNumber',
      summary: 'Assign a number to a sub-account',
      description:
        'Creates or replaces the assignment: a number assigned to another sub-account moves to this one (from the next inbound SMS on). ' +
        'A PUT of what is stored changes nothing and answers it as stored.',
    }),
    NumberParam(),
    ApiJsonBody({
      type: PutNumberDto,
      examples: {
        longNumber: {
          summary: 'A long number with its own webhook and a HELP answer',
          value: { accountId: 'acme', subAccountId: 'acme_hq', inboundWebhookUrl: 'https://hooks.acme.example/inbound', helpText: 'Acme alerts: reply STOP to opt out. Help: support@acme.example' },
        },
        shortCode: { summary: "A short code posting to the account's default callback URL", value: { accountId: 'acme', subAccountId: 'acme_marketing' } },
      },
      refusals: {
        description:
          `A number that is neither a possible international number nor a short code of 3-8 digits, an \`inboundWebhookUrl\` that is not an absolute http(s) URL with a host and no credentials or is longer than ${WEBHOOK_URL_MAX} characters, ` +
          `a \`helpText\` that is empty, only spaces or longer than ${HELP_TEXT_MAX} characters, or an id that is not 2-63 letters, digits, _ and - (1000). Nothing is changed.`,
        examples: {
          number: { code: ApiErrorCode.InvalidParameter, message: 'number "+4477" must be a long number in international form (+447700900123 or 447700900123) or a short code of 3-8 digits' },
          url: { code: ApiErrorCode.InvalidParameter, message: 'inboundWebhookUrl must be an http or https URL' },
          helpText: { code: ApiErrorCode.InvalidParameter, message: `helpText must be 1-${HELP_TEXT_MAX} characters, not only spaces, or null` },
        },
      },
    }),
    ApiOkResponse({ type: NumberSchema, description: 'The number as stored now.', example: NUMBER_EXAMPLE }),
    ApiErrorResponses({
      404: {
        description: 'The account does not exist, or the sub-account is not one of its own. Nothing is changed.',
        examples: {
          noAccount: { code: ApiErrorCode.NotFound, message: 'account acme does not exist' },
          noSubAccount: { code: ApiErrorCode.NotFound, message: 'account acme has no sub-account globex_hq' },
        },
      },
    }),
  );

export const RemoveNumberDocs = () =>
  applyDecorators(
    ApiOperation({ operationId: 'removeNumber', summary: 'Release a number', description: 'Inbound SMS sent to it from then on are recorded and not posted, as for any unknown number.' }),
    NumberParam(),
    ApiNoContentResponse({ description: 'Released.' }),
    ApiJsonBodyErrors(),
    ApiErrorResponses({ 404: noNumber }),
  );
