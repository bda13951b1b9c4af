import { applyDecorators } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiSchema } from '@nestjs/swagger';
import { ApiErrorCode } from '@seed/contracts';
import { ApiJsonBody } from '../openapi/api-json-body.openapi';
import { BatchSendDocs } from '../sms/sms-batch.openapi';
import { SmsItemPropertiesSchema, SmsMessageResultSchema } from '../sms/sms-message.openapi';

/** One SMS of the current API generation: a `many` item with a required text (single-message-request.validation.ts). */
@ApiSchema({ name: 'SingleMessageRequest', description: 'The fields of a `many` message; `destination` and `text` required.' })
export class SingleMessageRequestSchema extends SmsItemPropertiesSchema {
  @ApiProperty({ type: 'string', description: 'Phone number, international or national with `country`. Missing or not valid: 400, code 1002.', example: '+447911123456' })
  destination!: string;

  @ApiProperty({ type: 'string', minLength: 1, description: 'SMS body, up to 10 parts. Missing, empty or too long: 400, code 1004.', example: 'Your code is ready for pick-up' })
  text!: string;
}

export const SendSingleMessageDocs = () =>
  applyDecorators(
    ApiOperation({
      operationId: 'sendMessage',
      summary: 'Send one SMS',
      description: 'A message that would be rejected in a batch is refused with 400 and the code of its reason instead, and nothing is sent.',
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
      example: { umid: '01939a52-4c0e-7f3a-9c57-2b9e6a7b8c04', clientMessageId: 'pickup-77', destination: '447911123456', encoding: 'GSM7', status: { code: 'QUEUED', description: 'SMS is accepted and queued for processing' } },
    }),
  );

export const SendMessageBatchDocs = () =>
  BatchSendDocs({
    operationId: 'sendMessageBatch',
    summary: 'Send a batch of SMS',
    description: 'The body and response of `POST /sms/v1/{subAccountId}/many`, decided the same way.',
  });
