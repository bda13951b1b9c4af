import { applyDecorators } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiPropertyOptional, ApiQuery, ApiSchema } from '@nestjs/swagger';
import { ApiErrorCode } from '@seed/contracts';
import { VerificationLimits } from '@seed/verification-contracts';
import { ApiErrorResponses, ErrorCases } from '../openapi/api-error.openapi';
import { ApiJsonBody } from '../openapi/api-json-body.openapi';
import { UuidParam } from '../openapi/path-params.openapi';

const { codeLength, codeValidity, resendingInterval } = VerificationLimits;

/** A generation request as verify-request.validation.ts checks it. */
@ApiSchema({ name: 'VerificationRequest' })
export class VerificationRequestSchema {
  @ApiProperty({
    type: 'string',
    minLength: 1,
    description: 'Phone number, international or national with `country`. Missing, not a string or not a valid number: 400, code 1002.',
    example: '+447911123456',
  })
  destination!: string;

  @ApiPropertyOptional({ type: 'string', pattern: '^[A-Z]{2}$', nullable: true, description: 'ISO 3166 country of a national `destination`. Unknown: 400, code 1009.', example: 'GB' })
  country?: string | null;

  @ApiPropertyOptional({ type: 'string', maxLength: VerificationLimits.brandMaxLength, nullable: true, description: 'Shown in the SMS as `{brand}`. Longer: 400, code 1010.', example: 'ACME' })
  brand?: string | null;

  @ApiPropertyOptional({
    type: 'string',
    maxLength: VerificationLimits.templateMaxLength,
    pattern: '\\{code\\}',
    nullable: true,
    description:
      'SMS text; must contain `{code}`, may contain `{brand}` (then `brand` is required). Default "Your verification code is {code}", with a brand "{brand}: Your verification code is {code}". ' +
      `Filled in, at most ${VerificationLimits.textMaxLength} characters. Otherwise: 400, code 1007.`,
  })
  template?: string | null;

  @ApiPropertyOptional({ type: 'integer', minimum: codeLength.min, maximum: codeLength.max, nullable: true, description: `Digits of the code (default ${codeLength.default}). Out of range: 400, code 1010.` })
  codeLength?: number | null;

  @ApiPropertyOptional({ type: 'integer', minimum: codeValidity.min, maximum: codeValidity.max, nullable: true, description: `Seconds the code is valid (default ${codeValidity.default}). Out of range: 400, code 1010.` })
  codeValidity?: number | null;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: resendingInterval.min,
    maximum: resendingInterval.max,
    nullable: true,
    description: `Seconds before another SMS may be sent to the number (default ${resendingInterval.default}). Out of range: 400, code 1010.`,
  })
  resendingInterval?: number | null;

  @ApiPropertyOptional({ type: 'boolean', nullable: true, description: 'true: a waiting verification of the number is expired and a new one started (still after its resend interval).' })
  resetSession?: boolean | null;
}

@ApiSchema({ name: 'Verification', description: 'The verification request object.' })
export class VerificationSchema {
  @ApiProperty({ type: 'string', format: 'uuid' })
  uid!: string;

  @ApiProperty({ type: 'string', description: '`/verify/v2/{subAccountId}/{uid}`', example: '/verify/v2/acme_hq/01939a52-4c0e-7f3a-9c57-2b9e7c8d9e01' })
  resourceUri!: string;

  @ApiProperty({ type: 'integer', description: 'The number, international, without `+`.', example: 447911123456 })
  msisdn!: number;

  @ApiProperty({ type: 'string', enum: ['WAITING', 'VERIFIED', 'FAILED', 'EXPIRED'], description: 'FAILED after the 5th wrong code; EXPIRED after `expiresAt`. Both final, as VERIFIED.' })
  status!: string;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Wrong codes so far.' })
  attempt!: number;

  @ApiProperty({ type: 'string', format: 'date-time' })
  expiresAt!: string;

  @ApiProperty({ type: 'string', format: 'date-time', description: 'From when another generation request sends a new SMS.' })
  nextSmsAfter!: string;
}

const VERIFICATION_EXAMPLE = {
  uid: '01939a52-4c0e-7f3a-9c57-2b9e7c8d9e01',
  resourceUri: '/verify/v2/acme_hq/01939a52-4c0e-7f3a-9c57-2b9e7c8d9e01',
  msisdn: 447911123456,
  status: 'WAITING',
  attempt: 0,
  expiresAt: '2030-01-15T10:05:00.000Z',
  nextSmsAfter: '2030-01-15T10:00:30.000Z',
};

export const GenerateVerificationDocs = () =>
  applyDecorators(
    ApiOperation({
      operationId: 'startVerification',
      summary: 'Generate and send a verification code',
      description:
        'A new verification (WAITING, attempt 0) with its code sent by SMS. A WAITING one for the same number in the sub-account is sent again with the same code ' +
        '(same uid) once its `nextSmsAfter` has passed, unless `resetSession` is true.',
    }),
    ApiJsonBody({
      type: VerificationRequestSchema,
      examples: {
        international: { summary: 'An international number', value: { destination: '+447911123456' } },
        branded: { summary: 'A national number with a brand and a shorter code', value: { destination: '07911 123456', country: 'GB', brand: 'ACME', codeLength: 4, codeValidity: 600 } },
      },
      refusals: {
        description: 'Nothing is sent: destination (1002), country (1009), template (1007), brand, codeLength, codeValidity or resendingInterval out of range (1010), a value of the wrong type (1000).',
        examples: {
          noDestination: { code: ApiErrorCode.InvalidMsisdn, message: 'destination is required' },
          codeLength: { code: ApiErrorCode.ParameterOutOfRange, message: 'codeLength must be between 4 and 10' },
        },
      },
    }),
    ApiOkResponse({ type: VerificationSchema, description: 'The verification, WAITING.', example: VERIFICATION_EXAMPLE }),
    ApiErrorResponses({
      429: {
        description:
          "Code 1400: the number's last SMS is younger than its resend interval, or the number (per hour) or the sub-account (per minute) reached its verification SMS limit. " +
          "Code 1600: over the sub-account's request rate. `Retry-After` says when to try again.",
        examples: {
          resendTooEarly: { code: ApiErrorCode.ResendIntervalViolation, message: 'a code was sent to this number less than 30 s ago; try again after 2030-01-15T10:00:30.000Z' },
          ...ErrorCases.rateLimited.examples,
        },
      },
    }),
  );

export const CheckVerificationDocs = () =>
  applyDecorators(
    ApiOperation({
      operationId: 'checkVerification',
      summary: 'Read or validate a verification',
      description:
        'Without `code`: the status, nothing changes. With `code`: correct and unexpired -> VERIFIED; wrong -> `attempt` + 1, the 5th wrong one -> FAILED. ' +
        'A final verification (VERIFIED, FAILED, EXPIRED) is returned as it is.',
    }),
    UuidParam('uid', 'The `uid` of the generation response'),
    ApiQuery({ name: 'code', required: false, description: 'The code the user typed: 4 to 10 digits, given once.', schema: { type: 'string', pattern: '^[0-9]{4,10}$', example: '123456' } }),
    ApiOkResponse({ type: VerificationSchema, description: 'The verification after the check.', example: { ...VERIFICATION_EXAMPLE, status: 'VERIFIED' } }),
    ApiErrorResponses({
      400: {
        description: '`code` is not 4 to 10 digits, is given more than once, or has another length than this verification\'s codes (1000).',
        examples: { badCode: { code: ApiErrorCode.InvalidParameter, message: 'code must be 4 to 10 digits, given once' } },
      },
      404: {
        description: 'No such verification in this sub-account (or the uid is not a UUID).',
        examples: { notFound: { code: ApiErrorCode.NotFound, message: 'no such verification in this sub-account' } },
      },
    }),
  );
