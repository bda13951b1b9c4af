import { applyDecorators } from '@nestjs/common';
import { ApiExtraModels, ApiProperty, ApiResponse, ApiSchema, getSchemaPath } from '@nestjs/swagger';
import { ApiErrorCode } from '@seed/contracts';

/**
 * Rate limiting's code (product-decisions, "Rate limits"): listed even before every build answers
 * it, so that the documents do not change when it does.
 */
const RATE_LIMITED = 1600;
const ERROR_CODES = [...new Set<number>([...Object.values(ApiErrorCode), RATE_LIMITED])].sort((a, b) => a - b);

/** The contract's error body (api-error.ts), the answer of every status >= 400. */
@ApiSchema({ name: 'Error', description: 'The error body of every response with status >= 400.' })
export class ApiErrorSchema {
  @ApiProperty({
    type: 'integer',
    enum: ERROR_CODES,
    description:
      '1000 invalid parameter, 1001 illegal sub-account, 1002 invalid MSISDN, 1003 invalid encoding, 1004 invalid text, ' +
      '1005 invalid source, 1006 invalid expiry, 1007 invalid template, 1009 invalid country code, 1010 parameter out of range, ' +
      '1011 invalid schedule time, 1100 bulk limit reached, 1200 unauthorized, 1201 forbidden, 1300 not found, ' +
      '1400 resend interval violation, 1600 too many requests, 2000 internal error.',
  })
  code!: number;

  @ApiProperty({ description: 'What went wrong, for people.' })
  message!: string;

  @ApiProperty({ format: 'uuid', description: 'Identifies this error in the service logs.' })
  errorId!: string;

  @ApiProperty({ format: 'date-time', description: 'ISO 8601 UTC with fractional seconds and Z.' })
  timestamp!: string;
}

export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 413 | 415 | 429 | 503;

/** When a status is answered, and examples of its body (code and message). */
export interface ErrorCase {
  description: string;
  examples: Record<string, { code: number; message: string }>;
}

const RETRY_AFTER = {
  'Retry-After': { description: 'Whole seconds to wait before trying again.', schema: { type: 'integer', minimum: 0 } },
};

/** Ready-made cases that read the same on every operation that has them. */
export const ErrorCases = {
  badJson: { code: ApiErrorCode.InvalidParameter, message: 'request body is not valid JSON' },
  tooLarge: {
    description: 'The body is larger than BODY_LIMIT (16 MB by default).',
    examples: { tooLarge: { code: ApiErrorCode.InvalidParameter, message: 'request body is larger than 16mb' } },
  },
  notJson: {
    description: 'The body is not JSON (Content-Type other than application/json or a +json type), or not UTF-8.',
    examples: { notJson: { code: ApiErrorCode.InvalidParameter, message: 'Content-Type must be application/json' } },
  },
  apiKey: {
    description: 'Missing, unknown or revoked API key.',
    examples: { missingKey: { code: ApiErrorCode.Unauthorized, message: 'missing API key: send Authorization: Bearer <API_KEY>' } },
  },
  subAccount: {
    description: "The sub-account is not one of the API key's account (another account's, or one that does not exist: both are answered alike).",
    examples: { otherSubAccount: { code: ApiErrorCode.IllegalSubAccount, message: 'sub-account acme_eu is not available to this API key' } },
  },
  adminToken: {
    description: 'Missing or wrong admin token.',
    examples: { wrongToken: { code: ApiErrorCode.Unauthorized, message: 'missing or wrong admin token' } },
  },
  adminAuthLimited: {
    description: 'Too many failed admin authentications from this address (ADMIN_AUTH_FAILURES_PER_MINUTE); every attempt from it, right token or not, is refused until `Retry-After`.',
    examples: { adminAuthLimited: { code: RATE_LIMITED, message: 'too many failed admin authentications from this address; try again later' } },
  },
  rateLimited: {
    description: "Over the sub-account's request rate. `Retry-After` says when to try again.",
    examples: { rateLimited: { code: RATE_LIMITED, message: 'too many requests: sub-account acme_hq is limited to 1800 requests per second' } },
  },
  unavailable: {
    description: 'A dependency (Kafka, PostgreSQL, the owning service) is unavailable, or the gateway is still starting. `Retry-After` says when to try again.',
    examples: { unavailable: { code: ApiErrorCode.InternalError, message: 'the service did not answer in time; try again' } },
  },
} satisfies Record<string, ErrorCase | { code: number; message: string }>;

/** A 400 whose examples are the operation's own, plus the body-parsing one every body can get. */
export function badRequest(description: string, examples: ErrorCase['examples']): ErrorCase {
  return {
    description: `${description} Also a body that is not valid JSON (or not a JSON object).`,
    examples: { ...examples, badJson: ErrorCases.badJson },
  };
}

/**
 * The error responses of one operation, each with the contract's error body and an example per
 * case; 429 and 503 also with `Retry-After`.
 */
export function ApiErrorResponses(cases: Partial<Record<ErrorStatus, ErrorCase>>): MethodDecorator & ClassDecorator {
  const decorators = (Object.entries(cases) as [string, ErrorCase][]).map(([status, errorCase]) =>
    ApiResponse({
      status: Number(status),
      description: errorCase.description,
      ...(status === '429' || status === '503' ? { headers: RETRY_AFTER } : {}),
      content: {
        'application/json': {
          schema: { $ref: getSchemaPath(ApiErrorSchema) },
          examples: Object.fromEntries(Object.entries(errorCase.examples).map(([name, body]) => [name, { value: exampleError(body) }])),
        },
      },
    }),
  );
  return applyDecorators(ApiExtraModels(ApiErrorSchema), ...decorators);
}

// Fixed ids and times: the documents are compared with their committed copies.
const exampleError = (body: { code: number; message: string }) => ({
  ...body,
  errorId: '0b3f6f0e-7d1c-4a53-9a51-2f1d9c1e5b7a',
  timestamp: '2030-01-15T10:00:00.000Z',
});
