import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { IsArray, IsBoolean, IsOptional, IsString, MaxLength } from 'class-validator';
import { SmsMessageSchema, SmsTemplateSchema } from './sms-message.openapi';

/**
 * The envelope of a batch request. The template and the items are checked by
 * sms-properties.rules.ts (see there why not by decorators); their schemas only describe them.
 */
@ApiSchema({ name: 'BatchRequest', description: 'Up to 10,000 messages; the shared properties once in `template`.' })
export class BatchRequestDto {
  @ApiProperty({
    type: [SmsMessageSchema],
    minItems: 1,
    maxItems: 10_000,
    description: 'The messages, each an object. Empty: 400, code 1000; more than 10,000: 400, code 1100.',
  })
  @IsArray({ message: 'messages must be a non-empty array' })
  messages!: unknown[];

  @ApiPropertyOptional({
    type: 'string',
    maxLength: 50,
    nullable: true,
    description: 'Unique per sub-account: the same value again returns the first response and sends nothing twice.',
  })
  @IsOptional()
  @IsString()
  @MaxLength(50)
  clientBatchId?: string;

  @ApiPropertyOptional({ type: () => SmsTemplateSchema, nullable: true, description: 'Not an object: 400, code 1007.' })
  @IsOptional()
  template?: unknown;

  @ApiPropertyOptional({ type: 'boolean', nullable: true, description: 'true: the response lists every message with its status.' })
  @IsOptional()
  @IsBoolean()
  includeMessagesInResponse?: boolean;
}
