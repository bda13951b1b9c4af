import { applyDecorators } from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiParam, ApiProperty, ApiQuery, ApiSchema } from '@nestjs/swagger';
import { ApiErrorCode } from '@seed/contracts';
import { ApiErrorResponses, type ErrorCase } from '../openapi/api-error.openapi';
import { ApiJsonBodyErrors } from '../openapi/api-json-body.openapi';
import { CURSOR_PATTERN, LIST_LIMIT, PATH_MSISDN_PATTERN } from './opt-out-request.validation';

const ID_PATTERN = '^[A-Za-z0-9][A-Za-z0-9_-]{1,62}$';

@ApiSchema({ name: 'OptOut', description: 'A recipient who asked a sub-account to stop messaging it: none of its messages to them is sent (`undelivered`, errorCode `OPTED_OUT`).' })
export class OptOutSchema {
  @ApiProperty({ type: 'string', pattern: ID_PATTERN })
  subAccountId!: string;

  @ApiProperty({ type: 'string', pattern: CURSOR_PATTERN, description: 'E.164 digits without `+`, as destinations are stored.' })
  msisdn!: string;

  @ApiProperty({ type: 'string', enum: ['keyword', 'admin'], description: '`keyword`: the recipient sent one (STOP, ...); `admin`: an operator, through this API.' })
  source!: string;

  @ApiProperty({ type: 'string', nullable: true, description: 'The keyword as the recipient sent it; null for `admin`.' })
  keyword!: string | null;

  @ApiProperty({ type: 'string', format: 'date-time' })
  optedOutAt!: string;
}

@ApiSchema({ name: 'OptOutPage' })
export class OptOutPageSchema {
  @ApiProperty({ type: () => [OptOutSchema], description: 'By MSISDN.' })
  optOuts!: OptOutSchema[];

  @ApiProperty({ type: 'string', pattern: CURSOR_PATTERN, nullable: true, description: 'Pass as `after` for the next page; null on the last one.' })
  next!: string | null;
}

const OPT_OUT_EXAMPLE = { subAccountId: 'acme_hq', msisdn: '447911123456', source: 'admin', keyword: null, optedOutAt: '2030-01-15T10:00:00.000Z' };
const KEYWORD_EXAMPLE = { subAccountId: 'acme_hq', msisdn: '4915112345678', source: 'keyword', keyword: 'STOP', optedOutAt: '2030-01-14T18:30:00.000Z' };

/** The admin API's sub-account: unlike the messaging API's (path-params.openapi.ts), any other is a 404. */
export const SubAccountOfAccountParam = () =>
  ApiParam({ name: 'subAccountId', description: 'A sub-account of the account (`<accountId>_hq` is its default); any other: 404.', schema: { type: 'string', pattern: ID_PATTERN, example: 'acme_hq' } });

const MsisdnParam = () =>
  ApiParam({
    name: 'msisdn',
    description: 'The recipient in international form, with `+`, `00` or nothing in front (`+447911123456`, `00447911123456`, `447911123456`: the same recipient); it must be a valid number of its numbering plan.',
    // The example without `+`: a path carries it escaped (`%2B`), which generated tests read as not matching the pattern.
    schema: { type: 'string', pattern: PATH_MSISDN_PATTERN, example: '447911123456' },
  });

const noSubAccount: ErrorCase = {
  description: 'The account does not exist, or the sub-account is not one of its own.',
  examples: {
    noAccount: { code: ApiErrorCode.NotFound, message: 'account acme does not exist' },
    noSubAccount: { code: ApiErrorCode.NotFound, message: 'account acme has no sub-account "globex_hq"' },
  },
};
const badMsisdn = {
  description: 'The MSISDN of the path is not a valid international number (1000). Nothing is changed.',
  examples: { badMsisdn: { code: ApiErrorCode.InvalidParameter, message: 'msisdn "+4479" must be a valid international number such as +447911123456, 447911123456 or 00447911123456' } },
};

export const ListOptOutsDocs = () =>
  applyDecorators(
    ApiOperation({ operationId: 'listOptOuts', summary: "List a sub-account's opt-outs", description: 'By MSISDN, a page at a time: pass `next` as `after` until it is null.' }),
    ApiQuery({ name: 'after', required: false, description: 'The `next` of the previous page: only MSISDNs after it.', schema: { type: 'string', pattern: CURSOR_PATTERN, example: '447911123456' } }),
    ApiQuery({ name: 'limit', required: false, description: 'Opt-outs per page.', schema: { type: 'integer', minimum: LIST_LIMIT.min, maximum: LIST_LIMIT.max, default: LIST_LIMIT.default } }),
    ApiOkResponse({ type: OptOutPageSchema, description: 'A page of opt-outs.', example: { optOuts: [OPT_OUT_EXAMPLE, KEYWORD_EXAMPLE], next: null } }),
    ApiJsonBodyErrors({
      description: '`after` is not 1-15 digits, or `limit` not an integer from 1 to 1000, or either is given twice (1000).',
      examples: { limit: { code: ApiErrorCode.InvalidParameter, message: 'limit must be an integer from 1 to 1000, given once' } },
    }),
    ApiErrorResponses({ 404: noSubAccount }),
  );

export const GetOptOutDocs = () =>
  applyDecorators(
    ApiOperation({ operationId: 'getOptOut', summary: 'Read an opt-out', description: 'Whether, since when and how the recipient opted out of the sub-account.' }),
    MsisdnParam(),
    ApiOkResponse({ type: OptOutSchema, description: 'The recipient is opted out.', example: KEYWORD_EXAMPLE }),
    ApiJsonBodyErrors(badMsisdn),
    ApiErrorResponses({
      404: {
        description: `${noSubAccount.description} Or the recipient is not opted out.`,
        examples: { ...noSubAccount.examples, notOptedOut: { code: ApiErrorCode.NotFound, message: '447911123456 has not opted out of acme_hq' } },
      },
    }),
  );

export const OptOutDocs = () =>
  applyDecorators(
    ApiOperation({
      operationId: 'putOptOut',
      summary: 'Opt a recipient out',
      description:
        'From now on no message of the sub-account to the recipient is handed to a carrier: each ends `undelivered` with errorCode `OPTED_OUT`. ' +
        'Takes no body. A recipient already opted out stays as stored (its first source and time).',
    }),
    MsisdnParam(),
    ApiOkResponse({ type: OptOutSchema, description: 'The opt-out as stored.', example: OPT_OUT_EXAMPLE }),
    ApiJsonBodyErrors(badMsisdn),
    ApiErrorResponses({ 404: noSubAccount }),
  );

export const OptInDocs = () =>
  applyDecorators(
    ApiOperation({ operationId: 'removeOptOut', summary: 'Opt a recipient back in', description: 'The sub-account may message the recipient again. A recipient who is not opted out is answered alike.' }),
    MsisdnParam(),
    ApiNoContentResponse({ description: 'The recipient is not opted out.' }),
    ApiJsonBodyErrors(badMsisdn),
    ApiErrorResponses({ 404: noSubAccount }),
  );
