import { IsArray, IsBoolean, IsOptional, IsString, MaxLength } from 'class-validator';

/**
 * The envelope of a batch request. The template and the items are checked by
 * sms-properties.rules.ts (see there why not by decorators).
 */
export class BatchRequestDto {
  @IsArray({ message: 'messages must be a non-empty array' })
  messages!: unknown[];

  @IsOptional()
  @IsString()
  @MaxLength(50)
  clientBatchId?: string;

  @IsOptional()
  template?: unknown;

  @IsOptional()
  @IsBoolean()
  includeMessagesInResponse?: boolean;
}
