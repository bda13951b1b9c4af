import { applyDecorators } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { ApiErrorCode } from '@seed/contracts';
import { ApiJsonBody } from '../openapi/api-json-body.openapi';
import { BatchRequestDto } from './batch-request.dto';
import { CompactTemplateSchema, SmsMessageResultSchema } from './sms-message.openapi';

@ApiSchema({ name: 'CompactBatchRequest', description: 'One text to up to 10,000 destinations: `many` with one message per destination.' })
export class CompactBatchRequestSchema {
  @ApiProperty({
    type: 'array',
    items: { type: 'string', nullable: true },
    minItems: 1,
    maxItems: 10_000,
    description: 'Phone numbers, read as `destination` of `many`. Empty: 400, code 1000; more than 10,000: 400, code 1100; not a string: 400, code 1002; null or invalid: that message is rejected.',
    example: ['+447911123456', '+4915112345678'],
  })
  destinations!: (string | null)[];

  @ApiProperty({ type: () => CompactTemplateSchema, description: 'Required, with a non-empty `text`: else 400, code 1004.' })
  template!: CompactTemplateSchema;

  @ApiPropertyOptional({ type: 'string', maxLength: 50, nullable: true, description: 'As in `many` (shared with it in the sub-account).' })
  clientBatchId?: string | null;

  @ApiPropertyOptional({ type: 'boolean', nullable: true })
  includeMessagesInResponse?: boolean | null;
}

@ApiSchema({ name: 'BatchResponse' })
export class BatchResponseSchema {
  @ApiProperty({ type: 'string', format: 'uuid' })
  batchId!: string;

  @ApiPropertyOptional({ type: 'string', description: 'Echo of the request\'s, when it had one.' })
  clientBatchId?: string;

  @ApiProperty({ type: 'integer', minimum: 0 })
  acceptedCount!: number;

  @ApiProperty({ type: 'integer', minimum: 0 })
  rejectedCount!: number;

  @ApiPropertyOptional({ type: [SmsMessageResultSchema], description: 'Only when `includeMessagesInResponse` was true; in request order.' })
  messages?: SmsMessageResultSchema[];
}

/** The 400s of a batch request as a whole (batch-request.validation.ts, sms-properties.rules.ts). */
export const BATCH_REFUSALS = {
  description:
    'The request as a whole is refused and nothing is sent: `messages` missing, empty or not an array, or an item not an object (1000), more than 10,000 messages (1100), ' +
    '`clientBatchId` over 50 characters (1000), a template that is not an object (1007), a property of the wrong type or format: ' +
    'destination (1002), encoding (1003), text (1004), source (1005), expiry (1006), country (1009), scheduled or more than 7 days ahead (1011), dlrCallbackUrl or clientMessageId (1000).',
  examples: {
    noMessages: { code: ApiErrorCode.InvalidParameter, message: 'messages must be a non-empty array' },
    tooMany: { code: ApiErrorCode.BulkLimitReached, message: 'a batch holds at most 10000 messages; this one has 10001' },
    badEncoding: { code: ApiErrorCode.InvalidEncoding, message: 'messages.2.encoding must be AUTO, GSM7 or UCS2' },
  },
};

export const BATCH_EXAMPLES = {
  personalised: {
    summary: 'Personalised messages with a shared template',
    value: {
      clientBatchId: 'spring-campaign-17',
      template: { text: 'Hello', source: 'ACME', dlrCallbackUrl: 'https://hooks.acme.example/dlr' },
      messages: [{ destination: '+447911123456', clientMessageId: 'cust-1' }, { destination: '+4915112345678', text: 'Hallo', clientMessageId: 'cust-2' }, { destination: '12' }],
      includeMessagesInResponse: true,
    },
  },
};

export const BATCH_RESPONSE_EXAMPLE = {
  batchId: '01939a52-4c0e-7f3a-9c57-2b9e5d1f0a11',
  clientBatchId: 'spring-campaign-17',
  acceptedCount: 2,
  rejectedCount: 1,
  messages: [
    { umid: '01939a52-4c0e-7f3a-9c57-2b9e6a7b8c01', clientMessageId: 'cust-1', destination: '447911123456', encoding: 'GSM7', status: { code: 'QUEUED', description: 'SMS is accepted and queued for processing' } },
    { umid: '01939a52-4c0e-7f3a-9c57-2b9e6a7b8c02', clientMessageId: 'cust-2', destination: '4915112345678', encoding: 'GSM7', status: { code: 'QUEUED', description: 'SMS is accepted and queued for processing' } },
    { umid: '01939a52-4c0e-7f3a-9c57-2b9e6a7b8c03', destination: '12', encoding: 'GSM7', status: { code: 'REJECTED', description: 'Invalid MSISDN format (not E.164 international number)' } },
  ],
};

/** The request, answers and examples of a `many` batch (legacy and current paths share them). */
export function BatchSendDocs(operation: { operationId: string; summary: string; description: string }): MethodDecorator {
  return applyDecorators(
    ApiOperation(operation),
    ApiJsonBody({ type: BatchRequestDto, examples: BATCH_EXAMPLES, refusals: BATCH_REFUSALS }),
    ApiOkResponse({
      type: BatchResponseSchema,
      description: 'Every message decided: accepted ones QUEUED, the others REJECTED with the reason. A repeated `clientBatchId` gets the first response again.',
      example: BATCH_RESPONSE_EXAMPLE,
    }),
  );
}

export const SendManyDocs = () =>
  BatchSendDocs({
    operationId: 'sendSmsBatch',
    summary: 'Send a batch of SMS',
    description: 'Up to 10,000 messages, each with its own properties; shared properties once in `template`.',
  });

export const SendCompactDocs = () =>
  applyDecorators(
    ApiOperation({
      operationId: 'sendSmsCompactBatch',
      summary: 'Send one text to many destinations',
      description: 'Decided exactly as `many` with one message per destination: the same checks, rejections, idempotency and response.',
    }),
    ApiJsonBody({
      type: CompactBatchRequestSchema,
      examples: { promotion: { summary: 'One text to three numbers', value: { destinations: ['+447911123456', '+4915112345678', '12'], template: { text: 'Sale today: 20% off', source: 'ACME' }, includeMessagesInResponse: false } } },
      refusals: {
        description: `As \`many\`, and: \`destinations\` missing, empty or not an array (1000), more than 10,000 (1100), one of them neither a string nor null (1002), no template or no \`template.text\` (1004).`,
        examples: {
          noDestinations: { code: ApiErrorCode.InvalidParameter, message: 'destinations must be a non-empty array' },
          noText: { code: ApiErrorCode.InvalidText, message: 'template.text is required' },
        },
      },
    }),
    ApiOkResponse({ type: BatchResponseSchema, description: 'As `many`.', example: { batchId: '01939a52-4c0e-7f3a-9c57-2b9e5d1f0a12', acceptedCount: 2, rejectedCount: 1 } }),
  );
