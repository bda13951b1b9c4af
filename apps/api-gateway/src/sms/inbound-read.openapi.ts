import { applyDecorators } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiQuery, ApiSchema } from '@nestjs/swagger';
import { ApiErrorCode } from '@seed/contracts';
import { ApiErrorResponses } from '../openapi/api-error.openapi';

@ApiSchema({ name: 'InboundMessage', description: 'An SMS a handset sent to one of the sub-account’s numbers, its parts joined.' })
export class InboundMessageSchema {
  @ApiProperty({ type: 'string', format: 'uuid' })
  umid!: string;
  @ApiProperty({ type: 'string' })
  subAccountId!: string;
  @ApiProperty({ type: 'string', description: 'The sender, as the carrier gave it (E.164 digits for a handset).', example: '447700900123' })
  source!: string;
  @ApiProperty({ type: 'string', description: 'The number it was sent to.', example: '447700100100' })
  destination!: string;
  @ApiProperty({ type: 'string' })
  body!: string;
  @ApiProperty({ type: 'string', enum: ['GSM7', 'ASCII', 'UCS2', 'LATIN1', 'BINARY'], description: 'As it came; BINARY bodies are the octets in hex.' })
  encoding!: string;
  @ApiProperty({ type: 'integer', minimum: 1, description: 'Parts received.' })
  smsCount!: number;
  @ApiProperty({ type: 'boolean', description: 'Some parts never came within 10 minutes: the body lacks them.' })
  incomplete!: boolean;
  @ApiProperty({ type: 'string', format: 'date-time' })
  receivedAt!: string;
}

@ApiSchema({ name: 'InboundPage', description: 'Inbound messages, newest first.' })
export class InboundPageSchema {
  @ApiProperty({ type: [InboundMessageSchema] })
  messages!: InboundMessageSchema[];
  @ApiProperty({ type: 'string', nullable: true, description: 'Pass as `before` for the next, older page; null on the last.', pattern: '^[0-9]{1,18}$' })
  next!: string | null;
}

export const INBOUND_LIMIT = { min: 1, max: 1000, default: 100 };

const INBOUND_PAGE_EXAMPLE = {
  messages: [
    {
      umid: '01939a52-4c0e-7f3a-9c57-2b9e6a7b8c01',
      subAccountId: 'acme_hq',
      source: '447911123456',
      destination: '447911000100',
      body: 'Is my parcel coming today?',
      encoding: 'GSM7',
      smsCount: 1,
      incomplete: false,
      receivedAt: '2030-01-15T10:00:00.000Z',
    },
  ],
  next: '48213',
};

export const InboundListDocs = () =>
  applyDecorators(
    ApiOperation({ operationId: 'listInboundSms', summary: 'List inbound SMS', description: "The SMS handsets sent to the sub-account's numbers (numbers are assigned through the admin API), newest first." }),
    ApiQuery({ name: 'since', required: false, description: 'Only messages received at or after this instant (ISO 8601, 1970 or later).', schema: { type: 'string', format: 'date-time' } }),
    ApiQuery({ name: 'before', required: false, description: 'The `next` of the previous page.', schema: { type: 'string', pattern: '^[0-9]{1,18}$' } }),
    ApiQuery({ name: 'limit', required: false, schema: { type: 'integer', minimum: INBOUND_LIMIT.min, maximum: INBOUND_LIMIT.max, default: INBOUND_LIMIT.default } }),
    ApiOkResponse({ type: InboundPageSchema, description: 'A page of inbound messages.', example: INBOUND_PAGE_EXAMPLE }),
    ApiErrorResponses({ 400: { description: 'A query parameter out of its range or form.', examples: { badSince: { code: ApiErrorCode.InvalidParameter, message: 'since must be an ISO 8601 date-time' } } } }),
  );
