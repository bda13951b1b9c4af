import { applyDecorators } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { ApiErrorCode } from '@seed/contracts';
import { ApiErrorResponses } from '../openapi/api-error.openapi';
import { UuidParam } from '../openapi/path-params.openapi';

const STATES = ['queued', 'rejected', 'sent', 'delivered', 'undelivered'];

@ApiSchema({ name: 'MessageStatus', description: 'A state of the message and why it is in it.' })
export class MessageStatusSchema {
  @ApiProperty({ type: 'string', enum: STATES, description: 'queued -> sent -> delivered | undelivered; rejected at acceptance. A final state never moves back.' })
  state!: string;

  @ApiProperty({ type: 'string', example: 'SMS is accepted and queued for processing' })
  detail!: string;

  @ApiProperty({ type: 'string', format: 'date-time' })
  timestamp!: string;

  @ApiProperty({ type: 'string', nullable: true, description: "The carrier's error code of an undelivered message." })
  errorCode!: string | null;

  @ApiProperty({ type: 'string', nullable: true })
  errorMessage!: string | null;
}

@ApiSchema({ name: 'MessageHistoryEntry', description: 'One recorded step; a receipt that changed nothing shows the state it left.' })
export class MessageHistoryEntrySchema extends MessageStatusSchema {
  @ApiProperty({ type: 'string', description: 'The event that recorded it.', example: 'MessageQueued' })
  event!: string;

  @ApiPropertyOptional({ type: 'string', isArray: true, description: "The carrier's message ids, one per part, on the `sent` step." })
  carrierMessageIds?: string[];

  @ApiPropertyOptional({
    type: 'string',
    description: 'The carrier of a `MessageRouted` step (each routing decision: the route, the carrier and the attempt are in `detail`) and of the `sent` step.',
    example: 'carrier-a',
  })
  carrierId?: string;
}

@ApiSchema({ name: 'Message', description: 'A message with its current status and its history.' })
export class MessageViewSchema {
  @ApiProperty({ type: 'string', format: 'uuid' })
  umid!: string;

  @ApiProperty({ type: 'string', format: 'uuid' })
  batchId!: string;

  @ApiProperty({ type: 'string', nullable: true })
  clientBatchId!: string | null;

  @ApiProperty({ type: 'string', nullable: true })
  clientMessageId!: string | null;

  @ApiProperty({ type: 'string' })
  subAccountId!: string;

  @ApiProperty({ type: 'string', description: 'E.164 digits without `+`; as given for a rejected message.' })
  destination!: string;

  @ApiProperty({ type: 'string', nullable: true })
  source!: string | null;

  @ApiProperty({ type: 'string', enum: ['GSM7', 'UCS2'] })
  encoding!: string;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'SMS parts the text needs.' })
  smsCount!: number;

  @ApiProperty({ type: 'string', format: 'date-time', nullable: true })
  scheduled!: string | null;

  @ApiProperty({ type: 'string', format: 'date-time', nullable: true })
  expiry!: string | null;

  @ApiProperty({ type: () => MessageStatusSchema })
  status!: MessageStatusSchema;

  @ApiProperty({ type: [MessageHistoryEntrySchema], description: 'Oldest first.' })
  history!: MessageHistoryEntrySchema[];
}

@ApiSchema({ name: 'BatchStates', description: 'Messages of the batch per current state.' })
export class BatchStatesSchema {
  @ApiProperty({ type: 'integer', minimum: 0 })
  queued!: number;
  @ApiProperty({ type: 'integer', minimum: 0 })
  rejected!: number;
  @ApiProperty({ type: 'integer', minimum: 0 })
  sent!: number;
  @ApiProperty({ type: 'integer', minimum: 0 })
  delivered!: number;
  @ApiProperty({ type: 'integer', minimum: 0 })
  undelivered!: number;
}

@ApiSchema({ name: 'Batch', description: 'A batch with its counts.' })
export class BatchViewSchema {
  @ApiProperty({ type: 'string', format: 'uuid' })
  batchId!: string;

  @ApiProperty({ type: 'string', nullable: true })
  clientBatchId!: string | null;

  @ApiProperty({ type: 'string' })
  subAccountId!: string;

  @ApiProperty({ type: 'string', format: 'date-time' })
  submittedAt!: string;

  @ApiProperty({ type: 'integer', minimum: 0 })
  acceptedCount!: number;

  @ApiProperty({ type: 'integer', minimum: 0 })
  rejectedCount!: number;

  @ApiProperty({ type: () => BatchStatesSchema })
  states!: BatchStatesSchema;
}

const MESSAGE_EXAMPLE = {
  umid: '01939a52-4c0e-7f3a-9c57-2b9e6a7b8c01',
  batchId: '01939a52-4c0e-7f3a-9c57-2b9e5d1f0a11',
  clientBatchId: 'spring-campaign-17',
  clientMessageId: 'cust-1',
  subAccountId: 'acme_hq',
  destination: '447911123456',
  source: 'ACME',
  encoding: 'GSM7',
  smsCount: 1,
  scheduled: null,
  expiry: null,
  status: { state: 'delivered', detail: 'SMS is delivered to the handset', timestamp: '2030-01-15T10:00:02.130Z', errorCode: null, errorMessage: null },
  history: [
    { event: 'MessageQueued', state: 'queued', detail: 'SMS is accepted and queued for processing', timestamp: '2030-01-15T10:00:00.000Z', errorCode: null, errorMessage: null },
    { event: 'MessageSent', state: 'sent', detail: 'SMS is handed to the carrier', timestamp: '2030-01-15T10:00:00.210Z', errorCode: null, errorMessage: null, carrierMessageIds: ['5f1c2a'] },
    { event: 'MessageDelivered', state: 'delivered', detail: 'SMS is delivered to the handset', timestamp: '2030-01-15T10:00:02.130Z', errorCode: null, errorMessage: null },
  ],
};

const NOT_FOUND = (what: string) => ({
  404: {
    description: `No such ${what} in this sub-account (or the id is not a UUID).`,
    examples: { notFound: { code: ApiErrorCode.NotFound, message: `no such ${what} in this sub-account` } },
  },
});

/** `GET .../messages/{umid}` of either API generation. */
export const MessageReadDocs = (operationId: string) =>
  applyDecorators(
    ApiOperation({ operationId, summary: 'Read a message', description: 'Its current status and every step it went through, oldest first.' }),
    UuidParam('umid', 'The message id (`umid`) of the batch response'),
    ApiOkResponse({ type: MessageViewSchema, description: 'The message.', example: MESSAGE_EXAMPLE }),
    ApiErrorResponses(NOT_FOUND('message')),
  );

export const BatchReadDocs = () =>
  applyDecorators(
    ApiOperation({ operationId: 'getSmsBatch', summary: 'Read a batch', description: 'Its counts, and how many of its messages are in each state now.' }),
    UuidParam('batchId', 'The `batchId` of the batch response'),
    ApiOkResponse({
      type: BatchViewSchema,
      description: 'The batch.',
      example: {
        batchId: '01939a52-4c0e-7f3a-9c57-2b9e5d1f0a11',
        clientBatchId: 'spring-campaign-17',
        subAccountId: 'acme_hq',
        submittedAt: '2030-01-15T10:00:00.000Z',
        acceptedCount: 2,
        rejectedCount: 1,
        states: { queued: 0, rejected: 1, sent: 1, delivered: 1, undelivered: 0 },
      },
    }),
    ApiErrorResponses(NOT_FOUND('batch')),
  );
