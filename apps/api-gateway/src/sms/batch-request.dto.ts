import { Type } from 'class-transformer';
import {
  IsArray,
  IsBoolean,
  IsIn,
  IsISO8601,
  IsObject,
  IsOptional,
  IsString,
  IsUrl,
  MaxLength,
  Validate,
  ValidateNested,
  ValidatorConstraint,
  type ValidatorConstraintInterface,
} from 'class-validator';
import { isSupportedCountry } from 'libphonenumber-js';
import { ApiErrorCode } from '@seed/contracts';
import type { SmsEncodingName } from '@seed/sms-batch-contracts';
import { errorCode } from '../http/validate-body';

const ISO = { strict: true, strictSeparator: true };

@ValidatorConstraint({ name: 'countryCode' })
class CountryCode implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return typeof value === 'string' && /^[A-Z]{2}$/.test(value) && isSupportedCountry(value);
  }
  defaultMessage(): string {
    return '$property must be a supported ISO 3166 country code of two capital letters';
  }
}

/** Properties a template and an item share; an item's value overrides the template's. */
export class SmsPropertiesDto {
  @IsOptional()
  @IsString({ context: errorCode(ApiErrorCode.InvalidText) })
  text?: string;

  @IsOptional()
  @IsString({ context: errorCode(ApiErrorCode.InvalidSource) })
  source?: string;

  @IsOptional()
  @IsIn(['AUTO', 'GSM7', 'UCS2'], { context: errorCode(ApiErrorCode.InvalidEncoding), message: '$property must be AUTO, GSM7 or UCS2' })
  encoding?: SmsEncodingName;

  @IsOptional()
  @IsISO8601(ISO, { context: errorCode(ApiErrorCode.InvalidScheduleTime), message: '$property must be an ISO 8601 date-time' })
  scheduled?: string;

  @IsOptional()
  @IsISO8601(ISO, { context: errorCode(ApiErrorCode.InvalidExpiry), message: '$property must be an ISO 8601 date-time' })
  expiry?: string;

  @IsOptional()
  @IsUrl(
    { protocols: ['http', 'https'], require_protocol: true, require_tld: false },
    { message: '$property must be an http(s) URL' },
  )
  dlrCallbackUrl?: string;
}

export class SmsItemDto extends SmsPropertiesDto {
  /** Absent: the message is rejected alone ("Invalid MSISDN format"); not a string: the request is. */
  @IsOptional()
  @IsString({ context: errorCode(ApiErrorCode.InvalidMsisdn) })
  destination?: string;

  @IsOptional()
  @Validate(CountryCode, { context: errorCode(ApiErrorCode.InvalidCountryCode) })
  country?: string;

  @IsOptional()
  @IsString()
  @MaxLength(50)
  clientMessageId?: string;
}

export class BatchRequestDto {
  @IsArray({ message: 'messages must be a non-empty array' })
  @ValidateNested({ each: true })
  @Type(() => SmsItemDto)
  messages!: SmsItemDto[];

  @IsOptional()
  @IsString()
  @MaxLength(50)
  clientBatchId?: string;

  @IsOptional()
  @IsObject({ context: errorCode(ApiErrorCode.InvalidTemplate), message: 'template must be an object' })
  @ValidateNested()
  @Type(() => SmsPropertiesDto)
  template?: SmsPropertiesDto;

  @IsOptional()
  @IsBoolean()
  includeMessagesInResponse?: boolean;
}
