import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';

/**
 * RFC 3339 date-times of the years 0001-9999, as sms-properties.rules.ts accepts them (it also
 * takes a few more ISO 8601 forms). `format` alone is only an annotation in OpenAPI 3.1, so a
 * client or a fuzzer would take "" for a date-time.
 */
const DATE_TIME_PATTERN = '^(000[1-9]|00[1-9][0-9]|0[1-9][0-9]{2}|[1-9][0-9]{3})-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$';
const DATE_TIME = 'ISO 8601 with a time zone, within the years 0001 to 9999 in UTC';

/**
 * The message properties of a batch request as sms-properties.rules.ts checks them: a wrong type
 * or format refuses the whole request (400 with the field's code); `null` counts as absent; what
 * only sms-batch can judge (text and source length, a number's validity, an expiry in the past)
 * rejects that message alone, in a 200 response.
 */
abstract class SmsPropertiesSchema {
  @ApiPropertyOptional({
    type: 'string',
    nullable: true,
    description: 'Sender id: alphanumeric up to 11 characters or numeric up to 16 digits; a longer one rejects the message. Default: the platform\'s SMS_DEFAULT_SOURCE.',
    example: 'ACME',
  })
  source?: string | null;

  @ApiPropertyOptional({
    type: 'string',
    enum: ['AUTO', 'GSM7', 'UCS2'],
    nullable: true,
    description: 'AUTO (default) picks GSM7 when every character is in the GSM 03.38 alphabet, else UCS2. Anything else: 400, code 1003.',
  })
  encoding?: string | null;

  @ApiPropertyOptional({
    type: 'string',
    format: 'date-time',
    pattern: DATE_TIME_PATTERN,
    nullable: true,
    description: `When to send (${DATE_TIME}); in the past means now, more than 7 days ahead: 400, code 1011.`,
  })
  scheduled?: string | null;

  @ApiPropertyOptional({
    type: 'string',
    format: 'date-time',
    pattern: DATE_TIME_PATTERN,
    nullable: true,
    description: `Latest moment the message may still be sent (${DATE_TIME}); already past: the message is rejected. Not such a date: 400, code 1006.`,
  })
  expiry?: string | null;

  @ApiPropertyOptional({
    type: 'string',
    format: 'uri',
    maxLength: 2048,
    nullable: true,
    description: "Where delivery statuses are posted (http or https, no credentials); overrides the account's default callback URL. Otherwise: 400, code 1000.",
  })
  dlrCallbackUrl?: string | null;
}

@ApiSchema({ name: 'SmsTemplate', description: 'Properties applied to every message of the batch; a message\'s own value overrides them.' })
export class SmsTemplateSchema extends SmsPropertiesSchema {
  @ApiPropertyOptional({
    type: 'string',
    nullable: true,
    description: 'SMS body, up to 10 parts (1,530 GSM-7 septets or 670 UCS-2 characters); a message with no text or a longer one is rejected.',
    example: 'Your order has shipped',
  })
  text?: string | null;
}

/** What a message has beyond the template's properties, except its destination and text. */
export abstract class SmsItemPropertiesSchema extends SmsPropertiesSchema {
  @ApiPropertyOptional({
    type: 'string',
    pattern: '^[A-Z]{2}$',
    nullable: true,
    description: 'ISO 3166 country of a national `destination`. Unknown: 400, code 1009.',
    example: 'GB',
  })
  country?: string | null;

  @ApiPropertyOptional({ type: 'string', maxLength: 50, nullable: true, description: "The caller's reference of the message, echoed back.", example: 'order-1042' })
  clientMessageId?: string | null;
}

@ApiSchema({ name: 'SmsMessage', description: 'One message of a batch: its destination and the properties unique to it.' })
export class SmsMessageSchema extends SmsItemPropertiesSchema {
  @ApiPropertyOptional({
    type: 'string',
    nullable: true,
    description:
      'Phone number, international (+44..., 0044... or 44...) or national with `country`. Required: a message without one, or with a number that is not valid, ' +
      'is rejected ("Invalid MSISDN format (not E.164 international number)") while the others are sent. Not a string: 400, code 1002.',
    example: '+447911123456',
  })
  destination?: string | null;

  @ApiPropertyOptional({
    type: 'string',
    nullable: true,
    description: "SMS body (else the template's), up to 10 parts; a message with no text or a longer one is rejected. Not a string: 400, code 1004.",
    example: 'Hallo',
  })
  text?: string | null;
}

@ApiSchema({ name: 'CompactTemplate', description: 'The one text and the properties of every message of a compact batch.' })
export class CompactTemplateSchema extends SmsPropertiesSchema {
  @ApiProperty({ type: 'string', minLength: 1, description: 'SMS body, required; up to 10 parts, a longer one rejects every message.', example: 'Sale today: 20% off' })
  text!: string;
}

@ApiSchema({ name: 'SmsMessageStatus' })
export class SmsMessageStatusSchema {
  @ApiProperty({ type: 'string', enum: ['QUEUED', 'REJECTED'] })
  code!: string;

  @ApiProperty({
    type: 'string',
    description:
      'QUEUED: "SMS is accepted and queued for processing". REJECTED: one of "Text value is missing", "Invalid Text value. Reached max allowed limit", ' +
      '"Invalid Source value. Reached max allowed limit", "Expiry time already reached", "Invalid MSISDN format (not E.164 international number)", "Internal server error".',
  })
  description!: string;
}

@ApiSchema({ name: 'SmsMessageResult', description: 'What was decided for one message.' })
export class SmsMessageResultSchema {
  @ApiProperty({ type: 'string', format: 'uuid', description: 'Unique message id.' })
  umid!: string;

  @ApiPropertyOptional({ type: 'string', description: 'Present when the message had one.' })
  clientMessageId?: string;

  @ApiProperty({ type: 'string', description: 'E.164 digits without `+` when the number is valid; as given when it was rejected.' })
  destination!: string;

  @ApiProperty({ type: 'string', enum: ['GSM7', 'UCS2'] })
  encoding!: string;

  @ApiProperty({ type: () => SmsMessageStatusSchema })
  status!: SmsMessageStatusSchema;
}
