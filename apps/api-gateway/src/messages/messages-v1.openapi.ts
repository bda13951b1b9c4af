import { applyDecorators } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, ApiOperation, ApiProperty, ApiResponse, ApiSchema, getSchemaPath } from '@nestjs/swagger';
import { ApiErrorCode } from '@seed/contracts';
import { ApiErrorSchema } from '../openapi/api-error.openapi';
import { ApiJsonBody } from '../openapi/api-json-body.openapi';
import { BatchRequestDto } from '../sms/batch-request.dto';
import { BATCH_EXAMPLES, BATCH_REFUSALS, BATCH_RESPONSE_EXAMPLE, BatchResponseSchema } from '../sms/sms-batch.openapi';
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENT_REPLAYED_HEADER } from './idempotency-key';
import { SmsItemPropertiesSchema, SmsMessageResultSchema } from '../sms/sms-message.openapi';

/** One SMS of the current API generation: a `many` item with a required text (single-message-request.validation.ts). */
@ApiSchema({ name: 'SingleMessageRequest', description: 'The fields of a `many` message; `destination` and `text` required.' })
export class SingleMessageRequestSchema extends SmsItemPropertiesSchema {
  @ApiProperty({ type: 'string', description: 'Phone number, international or national with `country`. Missing or not valid: 400, code 1002.', example: '+447911123456' })
  destination!: string;

  @ApiProperty({ type: 'string', minLength: 1, description: 'SMS body, up to 10 parts. Missing, empty or too long: 400, code 1004.', example: 'Your code is ready for pick-up' })
  text!: string;
}

/**
 * The `Idempotency-Key` request header (idempotency-key.ts), in the operation's description rather
 * than as a header parameter: schemathesis then counts any other header a client sends as invalid
 * data the API should refuse, which HTTP does not (openapi-fuzz.e2e.spec.ts).
 */
const IDEMPOTENCY_KEY_DESCRIPTION =
  `\n\nHeader \`${IDEMPOTENCY_KEY_HEADER}\` (optional) makes a retry safe after a 503, a timeout or a lost connection: 1 to 255 visible ASCII characters, ` +
  "a UUID for example, new for each request. Within 24 h, the account's requests with the same key get the first one's answer (status and body, " +
  `with \`${IDEMPOTENT_REPLAYED_HEADER}: true\`) and send nothing again; one still being decided is waited for. The same key with another body, ` +
  'sub-account or operation: 422, code 1000. A refused request (4xx) is not remembered: retried with the same key, it is decided again. ' +
  'Malformed: 400, code 1000.';

/** The 422 of a reused `Idempotency-Key`. */
const IdempotencyDocs = () =>
  applyDecorators(
    ApiExtraModels(ApiErrorSchema),
    ApiResponse({
      status: 422,
      description: 'The `Idempotency-Key` was used by the account within 24 h for another request (another body, sub-account or operation). Nothing is sent.',
      content: {
        'application/json': {
          schema: { $ref: getSchemaPath(ApiErrorSchema) },
          examples: {
            keyReused: {
              value: {
                code: ApiErrorCode.InvalidParameter,
                message: 'the Idempotency-Key "pickup-77-1" was used within 24 h for another request; use a new key for a new request',
                errorId: '0b3f6f0e-7d1c-4a53-9a51-2f1d9c1e5b7a',
                timestamp: '2030-01-15T10:00:00.000Z',
              },
            },
          },
        },
      },
    }),
  );

const REPLAYED_HEADERS = {
  [IDEMPOTENT_REPLAYED_HEADER]: { description: '`true` when this is the answer of an earlier request with the same `Idempotency-Key`, repeated; absent otherwise.', schema: { type: 'string', enum: ['true'] } },
};

export const SendSingleMessageDocs = () =>
  applyDecorators(
    IdempotencyDocs(),
    ApiOperation({
      operationId: 'sendMessage',
      summary: 'Send one SMS',
      description: 'A message that would be rejected in a batch is refused with 400 and the code of its reason instead, and nothing is sent.' + IDEMPOTENCY_KEY_DESCRIPTION,
    }),
    ApiJsonBody({
      type: SingleMessageRequestSchema,
      examples: { simple: { summary: 'One message', value: { destination: '+447911123456', text: 'Your code is ready for pick-up', source: 'ACME', clientMessageId: 'pickup-77' } } },
      refusals: {
        description:
          'Not sent: no or an empty `text` (1004), and every check of a `many` message (1000, 1002, 1003, 1004, 1005, 1006, 1009, 1011); also what would reject it in a batch: ' +
          'no or an invalid number (1002), a text over 10 parts (1004), a source too long (1005), an expiry already past (1006).',
        examples: {
          noText: { code: ApiErrorCode.InvalidText, message: 'text is required' },
          invalidNumber: { code: ApiErrorCode.InvalidMsisdn, message: 'Invalid MSISDN format (not E.164 international number)' },
        },
      },
    }),
    ApiOkResponse({
      type: SmsMessageResultSchema,
      description: 'The message, queued.',
      headers: REPLAYED_HEADERS,
      example: { umid: '01939a52-4c0e-7f3a-9c57-2b9e6a7b8c04', clientMessageId: 'pickup-77', destination: '447911123456', encoding: 'GSM7', status: { code: 'QUEUED', description: 'SMS is accepted and queued for processing' } },
    }),
  );

export const SendMessageBatchDocs = () =>
  applyDecorators(
    ApiOperation({
      operationId: 'sendMessageBatch',
      summary: 'Send a batch of SMS',
      description: 'The body and response of `POST /sms/v1/{subAccountId}/many`, decided the same way.' + IDEMPOTENCY_KEY_DESCRIPTION,
    }),
    IdempotencyDocs(),
    ApiJsonBody({ type: BatchRequestDto, examples: BATCH_EXAMPLES, refusals: BATCH_REFUSALS }),
    ApiOkResponse({
      type: BatchResponseSchema,
      description:
        'Every message decided: accepted ones QUEUED, the others REJECTED with the reason. A repeated `clientBatchId` (or `Idempotency-Key`) gets the first response again.',
      example: BATCH_RESPONSE_EXAMPLE,
      headers: REPLAYED_HEADERS,
    }),
  );
