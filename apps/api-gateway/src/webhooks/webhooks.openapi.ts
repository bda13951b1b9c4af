import { applyDecorators } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiSchema } from '@nestjs/swagger';
import { ApiErrorCode } from '@seed/contracts';
import { ApiErrorResponses, type ErrorCase } from '../openapi/api-error.openapi';
import { ApiJsonBody, ApiJsonBodyErrors } from '../openapi/api-json-body.openapi';
import { UuidParam } from '../openapi/path-params.openapi';
import { SetWebhookDto } from './webhooks.dto';

@ApiSchema({ name: 'AccountWebhook' })
export class AccountWebhookSchema {
  @ApiProperty({ type: 'string', format: 'uri', nullable: true })
  dlrCallbackUrl!: string | null;

  @ApiProperty({ type: 'string', description: 'The secret the webhooks are signed with (HMAC-SHA256), shown only in this answer.' })
  signingSecret!: string;
}

@ApiSchema({ name: 'RotatedWebhookSecret' })
export class RotatedWebhookSecretSchema {
  @ApiProperty({ type: 'string', description: 'The new signing secret, shown only in this answer.' })
  signingSecret!: string;

  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, description: 'Until when webhooks are signed with the previous secret too; null when there was none.' })
  previousSecretValidUntil!: string | null;
}

@ApiSchema({ name: 'DeadLetter', description: 'A webhook delivery that gave up: retries ran out, or the target was refused.' })
export class DeadLetterSchema {
  @ApiProperty({ type: 'string', format: 'uuid' })
  deliveryId!: string;

  @ApiProperty({ type: 'string', format: 'uuid' })
  umid!: string;

  @ApiProperty({ type: 'string' })
  url!: string;

  @ApiProperty({ type: 'string', example: 'dead' })
  state!: string;

  @ApiProperty({ type: 'integer', minimum: 0 })
  attempts!: number;

  @ApiProperty({ type: 'integer', nullable: true, description: 'HTTP status of the last attempt, if it got one.' })
  lastStatus!: number | null;

  @ApiProperty({ type: 'string', nullable: true })
  lastError!: string | null;

  @ApiProperty({ type: 'string', format: 'date-time' })
  createdAt!: string;

  @ApiProperty({ type: 'string', format: 'date-time' })
  deadLetteredAt!: string;

  @ApiProperty({ type: 'object', additionalProperties: true, description: 'The webhook body that would have been sent.' })
  body!: Record<string, unknown>;
}

@ApiSchema({ name: 'DeadLetters' })
export class DeadLettersSchema {
  @ApiProperty({ type: [DeadLetterSchema], description: 'Oldest first, at most 1,000.' })
  deadLetters!: DeadLetterSchema[];
}

@ApiSchema({ name: 'Redriven' })
export class RedrivenSchema {
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Dead letters sent on their way again.' })
  redriven!: number;
}

const NO_ACCOUNT: Record<404, ErrorCase> = {
  404: { description: 'No such account.', examples: { noAccount: { code: ApiErrorCode.NotFound, message: 'account acme does not exist' } } },
};

export const SetWebhookDocs = () =>
  applyDecorators(
    ApiOperation({ operationId: 'setAccountWebhook', summary: "Set the account's default callback URL", description: 'Answers the signing secret (made on the first call, the same afterwards).' }),
    ApiJsonBody({
      type: SetWebhookDto,
      examples: { https: { summary: 'An https endpoint', value: { dlrCallbackUrl: 'https://hooks.acme.example/dlr' } } },
      refusals: {
        description: '`dlrCallbackUrl` missing, not a string, or not an http(s) URL without credentials (1000).',
        examples: { notUrl: { code: ApiErrorCode.InvalidParameter, message: 'dlrCallbackUrl must be a string' } },
      },
    }),
    ApiOkResponse({ type: AccountWebhookSchema, description: 'The URL and the signing secret.', example: { dlrCallbackUrl: 'https://hooks.acme.example/dlr', signingSecret: 'whsec_3q2-7wEXAMPLEo1Tn8Zs0' } }),
    ApiErrorResponses(NO_ACCOUNT),
  );

export const RotateSecretDocs = () =>
  applyDecorators(
    ApiOperation({ operationId: 'rotateWebhookSecret', summary: 'Rotate the signing secret', description: 'Webhooks are signed with both secrets for a while, so that receivers can switch over.' }),
    ApiOkResponse({ type: RotatedWebhookSecretSchema, description: 'The new secret.', example: { signingSecret: 'whsec_9Kd-EXAMPLEq2Lm4Rt7', previousSecretValidUntil: '2030-01-16T10:00:00.000Z' } }),
    ApiJsonBodyErrors(),
    ApiErrorResponses(NO_ACCOUNT),
  );

export const DeadLettersDocs = () =>
  applyDecorators(
    ApiOperation({ operationId: 'listDeadLetters', summary: 'List dead-lettered webhook deliveries' }),
    ApiOkResponse({
      type: DeadLettersSchema,
      description: "The account's dead letters.",
      example: {
        deadLetters: [
          {
            deliveryId: '01939a52-4c0e-7f3a-9c57-2b9e9a0b1c01',
            umid: '01939a52-4c0e-7f3a-9c57-2b9e6a7b8c01',
            url: 'https://hooks.acme.example/dlr',
            state: 'dead',
            attempts: 31,
            lastStatus: 500,
            lastError: 'HTTP 500',
            createdAt: '2030-01-14T10:00:01.000Z',
            deadLetteredAt: '2030-01-15T10:00:01.000Z',
            body: { namespace: 'SMS', eventType: 'outbound_message_status_changed', description: 'Outbound message status changed', payload: { umid: '01939a52-4c0e-7f3a-9c57-2b9e6a7b8c01' } },
          },
        ],
      },
    }),
    ApiErrorResponses(NO_ACCOUNT),
  );

export const RedriveAllDocs = () =>
  applyDecorators(
    ApiOperation({ operationId: 'redriveDeadLetters', summary: 'Send every dead letter again' }),
    ApiOkResponse({ type: RedrivenSchema, description: 'How many.', example: { redriven: 3 } }),
    ApiJsonBodyErrors(),
    ApiErrorResponses(NO_ACCOUNT),
  );

export const RedriveOneDocs = () =>
  applyDecorators(
    ApiOperation({ operationId: 'redriveDeadLetter', summary: 'Send one dead letter again' }),
    UuidParam('deliveryId', 'The `deliveryId` of the dead letter'),
    ApiOkResponse({ type: RedrivenSchema, description: 'Always 1 (a delivery that is no longer a dead letter is answered 404).', example: { redriven: 1 } }),
    ApiJsonBodyErrors(),
    ApiErrorResponses({
      404: {
        description: 'No such account, or no such dead letter in it.',
        examples: { ...NO_ACCOUNT[404].examples, noDeadLetter: { code: ApiErrorCode.NotFound, message: 'no dead letter 01939a52-4c0e-7f3a-9c57-2b9e9a0b1c01 in account acme' } },
      },
    }),
  );
