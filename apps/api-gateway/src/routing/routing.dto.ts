import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';

/*
 * The bodies of `PUT /admin/v1/carriers/{carrierId}` and `PUT /admin/v1/routes/{routeId}`. Omitted
 * (or null) fields take their defaults: a PUT states the whole carrier or route. sms-batch checks
 * the same rules again, and what no schema says (a URL's parts, a country's numbering plan, carriers
 * that exist): the commands cross Kafka. Each field's type check is its last decorator: class-validator
 * runs them bottom up and reports the first failure, so a wrong type is named as such.
 */

const CARRIER_ID = /^[a-z0-9][a-z0-9-]{0,39}$/;
/** An SMPP command_status other than 0 (success). */
const COMMAND_STATUS = /^0x(?!0{8})[0-9a-fA-F]{8}$/;
const PREFIX = /^[0-9]{1,15}$/;
const COUNTRY = /^[A-Za-z]{2}$/;
const ACCOUNT_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{1,62}$/;
const PRICE_AMOUNT = /^\d{1,6}(\.\d{1,6})?$/;
const CURRENCY = /^[A-Z]{3}$/;

const integerFrom = (min: number, max: number, orNull = false) => `$property must be an integer from ${min} to ${max}${orNull ? ', or null' : ''}`;

@ApiSchema({ name: 'AddressNumbering', description: 'TON and NPI of the addresses sent to the carrier; null: the platform chooses per address.' })
export class AddressNumberingDto {
  @ApiPropertyOptional({ type: 'integer', minimum: 0, maximum: 6, nullable: true, description: 'Type of number (SMPP 3.4, 5.2.5).', example: 1 })
  @IsOptional()
  @Min(0, { message: integerFrom(0, 6, true) })
  @Max(6, { message: integerFrom(0, 6, true) })
  @IsInt({ message: integerFrom(0, 6, true) })
  ton?: number | null;

  @ApiPropertyOptional({ type: 'integer', minimum: 0, maximum: 18, nullable: true, description: 'Numbering plan indicator (SMPP 3.4, 5.2.6).', example: 1 })
  @IsOptional()
  @Min(0, { message: integerFrom(0, 18, true) })
  @Max(18, { message: integerFrom(0, 18, true) })
  @IsInt({ message: integerFrom(0, 18, true) })
  npi?: number | null;
}

@ApiSchema({ name: 'PutCarrierRequest', description: 'A carrier: one SMPP account at one operator. Omitted fields take their defaults.' })
export class PutCarrierDto {
  @ApiPropertyOptional({
    type: 'string',
    maxLength: 512,
    pattern: '^smpps?://',
    nullable: true,
    description:
      '`smpp://system_id:password@host:port`, or `smpps://` for TLS; port 2775 when none is given; system_id 1-15 and password up to 8 printable ASCII characters (SMPP 3.4), percent-encoded. ' +
      'Required to create a carrier. On a replace, a URL without password keeps the stored password, and no URL keeps the stored endpoint and password. The password is sealed at rest and never returned.',
    example: 'smpp://acme:s3cret@smsc.carrier-a.example:2775',
  })
  @IsOptional()
  @MaxLength(512)
  @IsString()
  url?: string | null;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 64, default: 1, nullable: true, description: 'Sessions the operator allows for this system_id, in total across every sms-batch replica.' })
  @IsOptional()
  @Min(1, { message: integerFrom(1, 64) })
  @Max(64, { message: integerFrom(1, 64) })
  @IsInt({ message: integerFrom(1, 64) })
  binds?: number | null;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 1000, default: 100, nullable: true, description: 'submit_sm awaiting their response at once, per session.' })
  @IsOptional()
  @Min(1, { message: integerFrom(1, 1000) })
  @Max(1000, { message: integerFrom(1, 1000) })
  @IsInt({ message: integerFrom(1, 1000) })
  window?: number | null;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 100_000, nullable: true, description: 'Submits per second for the whole carrier, across replicas; null or absent: no cap.' })
  @IsOptional()
  @Min(1, { message: integerFrom(1, 100_000, true) })
  @Max(100_000, { message: integerFrom(1, 100_000, true) })
  @IsInt({ message: integerFrom(1, 100_000, true) })
  maxPerSecond?: number | null;

  @ApiPropertyOptional({ type: 'string', maxLength: 12, pattern: '^[\\x20-\\x7e]*$', nullable: true, description: 'system_type of the bind (SMPP 3.4), if the carrier asks for one.' })
  @IsOptional()
  @Matches(/^[\x20-\x7e]{0,12}$/, { message: '$property must be at most 12 printable ASCII characters, or null' })
  @IsString()
  systemType?: string | null;

  @ApiPropertyOptional({ type: () => AddressNumberingDto, nullable: true, description: 'TON/NPI of the sender address.' })
  @IsOptional()
  @ValidateNested()
  @Type(() => AddressNumberingDto)
  @IsObject({ message: '$property must be an object {ton, npi}' })
  source?: AddressNumberingDto | null;

  @ApiPropertyOptional({ type: () => AddressNumberingDto, nullable: true, description: 'TON/NPI of the destination address.' })
  @IsOptional()
  @ValidateNested()
  @Type(() => AddressNumberingDto)
  @IsObject({ message: '$property must be an object {ton, npi}' })
  destination?: AddressNumberingDto | null;

  @ApiPropertyOptional({ type: 'boolean', default: true, nullable: true, description: 'false: no new message is routed to it; its routes use their other carriers.' })
  @IsOptional()
  @IsBoolean()
  enabled?: boolean | null;

  @ApiPropertyOptional({
    type: 'string',
    isArray: true,
    maxItems: 1000,
    pattern: COMMAND_STATUS.source,
    nullable: true,
    description: 'Permanent submit_sm_resp statuses (`0x0000000B`) that send the message to the next carrier of its route instead of ending it.',
    example: ['0x0000000B'],
  })
  @IsOptional()
  @ArrayMaxSize(1000)
  @Matches(COMMAND_STATUS, { each: true, message: '$property must hold SMPP command_status values such as 0x0000000B (not 0x00000000)' })
  @IsArray()
  rerouteOnErrors?: string[] | null;
}

@ApiSchema({ name: 'RouteMatch', description: 'Which messages the route takes: every list given must match; within a list, any value. All empty: every message.' })
export class RouteMatchDto {
  @ApiPropertyOptional({ type: 'string', isArray: true, maxItems: 10_000, pattern: PREFIX.source, nullable: true, description: 'E.164 digit prefixes of the destination, without +.', example: ['44', '4915'] })
  @IsOptional()
  @ArrayMaxSize(10_000)
  @Matches(PREFIX, { each: true, message: '$property must hold E.164 digit prefixes (1-15 digits, without +)' })
  @IsArray()
  prefixes?: string[] | null;

  @ApiPropertyOptional({ type: 'string', isArray: true, maxItems: 1000, pattern: COUNTRY.source, nullable: true, description: 'ISO 3166-1 alpha-2 countries of the destination number, by its numbering plan (`GG` is not `GB`).', example: ['GB', 'DE'] })
  @IsOptional()
  @ArrayMaxSize(1000)
  @Matches(COUNTRY, { each: true, message: '$property must hold ISO 3166-1 alpha-2 country codes such as GB' })
  @IsArray()
  countries?: string[] | null;

  @ApiPropertyOptional({ type: 'string', isArray: true, maxItems: 1000, pattern: ACCOUNT_ID.source, nullable: true, example: ['acme'] })
  @IsOptional()
  @ArrayMaxSize(1000)
  @Matches(ACCOUNT_ID, { each: true, message: '$property must hold account ids' })
  @IsArray()
  accountIds?: string[] | null;

  @ApiPropertyOptional({ type: 'string', isArray: true, maxItems: 1000, pattern: ACCOUNT_ID.source, nullable: true, example: ['acme_eu'] })
  @IsOptional()
  @ArrayMaxSize(1000)
  @Matches(ACCOUNT_ID, { each: true, message: '$property must hold sub-account ids' })
  @IsArray()
  subAccountIds?: string[] | null;
}

@ApiSchema({ name: 'RouteCarrier' })
export class RouteCarrierDto {
  @ApiProperty({ type: 'string', pattern: CARRIER_ID.source, description: 'A configured carrier, named once per route.', example: 'carrier-a' })
  @Matches(CARRIER_ID, { message: '$property must be a carrier id' })
  @IsString()
  carrierId!: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 1_000_000, default: 1, nullable: true, description: '`weighted` routes: its share. Ignored by `failover` routes, where the order counts.' })
  @IsOptional()
  @Min(1, { message: integerFrom(1, 1_000_000) })
  @Max(1_000_000, { message: integerFrom(1, 1_000_000) })
  @IsInt({ message: integerFrom(1, 1_000_000) })
  weight?: number | null;
}

@ApiSchema({ name: 'RoutePrice', description: 'The price of one SMS part on this route.' })
export class RoutePriceDto {
  @ApiProperty({ type: 'string', pattern: PRICE_AMOUNT.source, description: 'A decimal string, up to 6 digits each side of the point.', example: '0.0125' })
  @Matches(PRICE_AMOUNT, { message: '$property must be a decimal string such as "0.0125" (up to 6 digits each side of the point)' })
  @IsString()
  amount!: string;

  @ApiProperty({ type: 'string', pattern: CURRENCY.source, description: 'ISO 4217.', example: 'EUR' })
  @Matches(CURRENCY, { message: '$property must be an ISO 4217 code in capitals, such as EUR' })
  @IsString()
  currency!: string;
}

@ApiSchema({ name: 'PutRouteRequest', description: 'A row of the ordered routing table. Omitted fields take their defaults.' })
export class PutRouteDto {
  @ApiPropertyOptional({ type: 'integer', minimum: -1_000_000, maximum: 1_000_000, default: 0, nullable: true, description: 'Lower is tried first; ties by route id.' })
  @IsOptional()
  @Min(-1_000_000, { message: integerFrom(-1_000_000, 1_000_000) })
  @Max(1_000_000, { message: integerFrom(-1_000_000, 1_000_000) })
  @IsInt({ message: integerFrom(-1_000_000, 1_000_000) })
  position?: number | null;

  @ApiPropertyOptional({ type: () => RouteMatchDto, nullable: true, description: 'Absent: the route takes every message (a catch-all).' })
  @IsOptional()
  @ValidateNested()
  @Type(() => RouteMatchDto)
  @IsObject({ message: '$property must be an object' })
  match?: RouteMatchDto | null;

  @ApiPropertyOptional({
    type: 'string',
    enum: ['failover', 'weighted'],
    default: 'failover',
    nullable: true,
    description: '`failover`: the first carrier in order that is bound and not throttled; `weighted`: split by weight among those.',
  })
  @IsOptional()
  @IsIn(['failover', 'weighted'], { message: '$property must be failover or weighted' })
  mode?: 'failover' | 'weighted' | null;

  @ApiProperty({ type: () => [RouteCarrierDto], minItems: 1, maxItems: 32, description: 'The carriers of the route, in failover order.' })
  @ArrayMinSize(1, { message: '$property must name at least one carrier' })
  @ArrayMaxSize(32, { message: '$property must name at most 32 carriers' })
  @IsObject({ each: true, message: '$property must hold objects {carrierId, weight}' })
  @ValidateNested({ each: true })
  @Type(() => RouteCarrierDto)
  @IsArray({ message: '$property must be a non-empty array' })
  carriers!: RouteCarrierDto[];

  @ApiPropertyOptional({ type: () => RoutePriceDto, nullable: true, description: 'Per SMS part, recorded with each routing decision; null or absent: none.' })
  @IsOptional()
  @ValidateNested()
  @Type(() => RoutePriceDto)
  @IsObject({ message: '$property must be an object {amount, currency}' })
  price?: RoutePriceDto | null;
}
