import { applyDecorators } from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiParam, ApiProperty, ApiSchema } from '@nestjs/swagger';
import { ApiErrorCode } from '@seed/contracts';
import { ApiErrorResponses, type ErrorCase } from '../openapi/api-error.openapi';
import { ApiJsonBody, ApiJsonBodyErrors } from '../openapi/api-json-body.openapi';
import { AddressNumberingDto, PutCarrierDto, PutRouteDto, RouteCarrierDto, RouteMatchDto, RoutePriceDto } from './routing.dto';

const ID_PATTERN = '^[a-z0-9][a-z0-9-]{0,39}$';

@ApiSchema({ name: 'Carrier', description: 'A carrier as stored: never its password.' })
export class CarrierSchema {
  @ApiProperty({ type: 'string', pattern: ID_PATTERN })
  carrierId!: string;

  @ApiProperty({ type: 'string', description: 'The URL without its password.', example: 'smpp://acme@smsc.carrier-a.example:2775' })
  url!: string;

  @ApiProperty({ type: 'integer', minimum: 1, maximum: 64 })
  binds!: number;

  @ApiProperty({ type: 'integer', minimum: 1, maximum: 1000 })
  window!: number;

  @ApiProperty({ type: 'integer', minimum: 1, maximum: 100_000, nullable: true })
  maxPerSecond!: number | null;

  @ApiProperty({ type: 'string', maxLength: 12, nullable: true })
  systemType!: string | null;

  @ApiProperty({ type: () => AddressNumberingDto })
  source!: AddressNumberingDto;

  @ApiProperty({ type: () => AddressNumberingDto })
  destination!: AddressNumberingDto;

  @ApiProperty({ type: 'boolean' })
  enabled!: boolean;

  @ApiProperty({ type: 'string', isArray: true, description: 'In capitals, as SMPP writes them.' })
  rerouteOnErrors!: string[];

  @ApiProperty({ type: 'string', format: 'date-time', description: 'When this version of the carrier was stored.' })
  configuredAt!: string;
}

@ApiSchema({ name: 'Route', description: 'A row of the routing table.' })
export class RouteSchema {
  @ApiProperty({ type: 'string', pattern: ID_PATTERN })
  routeId!: string;

  @ApiProperty({ type: 'integer', minimum: -1_000_000, maximum: 1_000_000 })
  position!: number;

  @ApiProperty({ type: () => RouteMatchDto, description: 'Countries in capitals; repeated values dropped.' })
  match!: RouteMatchDto;

  @ApiProperty({ type: 'string', enum: ['failover', 'weighted'] })
  mode!: string;

  @ApiProperty({ type: () => [RouteCarrierDto] })
  carriers!: RouteCarrierDto[];

  @ApiProperty({ type: () => RoutePriceDto, nullable: true })
  price!: RoutePriceDto | null;

  @ApiProperty({ type: 'string', format: 'date-time' })
  configuredAt!: string;
}

@ApiSchema({ name: 'Carriers' })
export class CarriersSchema {
  @ApiProperty({ type: () => [CarrierSchema], description: 'By id.' })
  carriers!: CarrierSchema[];
}

@ApiSchema({ name: 'Routes' })
export class RoutesSchema {
  @ApiProperty({ type: () => [RouteSchema], description: 'In the order they are tried: by position, then by id. The first whose match takes a message routes it.' })
  routes!: RouteSchema[];
}

const CARRIER_EXAMPLE = {
  carrierId: 'carrier-a',
  url: 'smpp://acme@smsc.carrier-a.example:2775',
  binds: 4,
  window: 100,
  maxPerSecond: 500,
  systemType: null,
  source: { ton: null, npi: null },
  destination: { ton: null, npi: null },
  enabled: true,
  rerouteOnErrors: ['0x0000000B'],
  configuredAt: '2030-01-15T10:00:00.000Z',
};
const ROUTE_EXAMPLE = {
  routeId: 'uk-split',
  position: 10,
  match: { prefixes: ['44'], countries: [], accountIds: [], subAccountIds: [] },
  mode: 'weighted',
  carriers: [
    { carrierId: 'carrier-a', weight: 70 },
    { carrierId: 'carrier-b', weight: 30 },
  ],
  price: { amount: '0.0125', currency: 'EUR' },
  configuredAt: '2030-01-15T10:00:00.000Z',
};

const CarrierIdParam = () =>
  ApiParam({ name: 'carrierId', description: 'Lower-case letters, digits and -, up to 40.', schema: { type: 'string', pattern: ID_PATTERN, example: 'carrier-a' } });
const RouteIdParam = () =>
  ApiParam({ name: 'routeId', description: 'Lower-case letters, digits and -, up to 40.', schema: { type: 'string', pattern: ID_PATTERN, example: 'uk-split' } });

const noCarrier: ErrorCase = { description: 'No such carrier.', examples: { noCarrier: { code: ApiErrorCode.NotFound, message: 'no carrier carrier-c' } } };
const noRoute: ErrorCase = { description: 'No such route.', examples: { noRoute: { code: ApiErrorCode.NotFound, message: 'no route uk-split' } } };

export const ListCarriersDocs = () =>
  applyDecorators(
    ApiOperation({ operationId: 'listCarriers', summary: 'List the carriers' }),
    ApiOkResponse({ type: CarriersSchema, description: 'Every carrier, by id.', example: { carriers: [CARRIER_EXAMPLE] } }),
    ApiJsonBodyErrors(),
  );

export const GetCarrierDocs = () =>
  applyDecorators(
    ApiOperation({ operationId: 'getCarrier', summary: 'Read a carrier', description: 'Its settings; the password is never shown.' }),
    CarrierIdParam(),
    ApiOkResponse({ type: CarrierSchema, description: 'The carrier.', example: CARRIER_EXAMPLE }),
    ApiJsonBodyErrors(),
    ApiErrorResponses({ 404: noCarrier }),
  );

export const PutCarrierDocs = () =>
  applyDecorators(
    ApiOperation({
      operationId: 'putCarrier',
      summary: 'Create or replace a carrier',
      description: 'Every sms-batch replica applies it within 5 seconds, without a restart. A PUT of what is stored changes nothing.',
    }),
    CarrierIdParam(),
    ApiJsonBody({
      type: PutCarrierDto,
      examples: {
        create: { summary: 'A carrier with 4 binds, capped at 500/s', value: { url: 'smpp://acme:s3cret@smsc.carrier-a.example:2775', binds: 4, maxPerSecond: 500, rerouteOnErrors: ['0x0000000B'] } },
        disable: { summary: 'Disabled, the stored URL and password kept', value: { binds: 4, maxPerSecond: 500, enabled: false } },
      },
      refusals: {
        description: 'A field out of its range or of the wrong type, a URL that is not smpp:// or smpps:// with a system_id and host, a new carrier without URL or password, or a carrierId that is not 1-40 of a-z, 0-9 and - (1000). Nothing is changed.',
        examples: {
          noPassword: { code: ApiErrorCode.InvalidParameter, message: 'the url of a new carrier must carry its password: smpp://system_id:password@host:port' },
          binds: { code: ApiErrorCode.InvalidParameter, message: 'binds must be an integer from 1 to 64' },
        },
      },
    }),
    ApiOkResponse({ type: CarrierSchema, description: 'The carrier as stored now.', example: CARRIER_EXAMPLE }),
  );

export const RemoveCarrierDocs = () =>
  applyDecorators(
    ApiOperation({ operationId: 'removeCarrier', summary: 'Remove a carrier', description: 'Only once no route names it.' }),
    CarrierIdParam(),
    ApiNoContentResponse({ description: 'Removed.' }),
    ApiJsonBodyErrors(),
    ApiErrorResponses({
      404: noCarrier,
      409: { description: 'A route names the carrier.', examples: { named: { code: ApiErrorCode.InvalidParameter, message: 'carrier carrier-a is named by route uk-split: change or remove it first' } } },
    }),
  );

export const ListRoutesDocs = () =>
  applyDecorators(
    ApiOperation({ operationId: 'listRoutes', summary: 'List the routing table', description: 'In the order routes are tried. With no route at all, every enabled carrier is a catch-all, `default` first.' }),
    ApiOkResponse({ type: RoutesSchema, description: 'The routes in order.', example: { routes: [ROUTE_EXAMPLE] } }),
    ApiJsonBodyErrors(),
  );

export const GetRouteDocs = () =>
  applyDecorators(
    ApiOperation({ operationId: 'getRoute', summary: 'Read a route' }),
    RouteIdParam(),
    ApiOkResponse({ type: RouteSchema, description: 'The route.', example: ROUTE_EXAMPLE }),
    ApiJsonBodyErrors(),
    ApiErrorResponses({ 404: noRoute }),
  );

export const PutRouteDocs = () =>
  applyDecorators(
    ApiOperation({
      operationId: 'putRoute',
      summary: 'Create or replace a route',
      description: 'Every sms-batch replica applies it within 5 seconds, without a restart. A PUT of what is stored changes nothing.',
    }),
    RouteIdParam(),
    ApiJsonBody({
      type: PutRouteDto,
      examples: {
        split: { summary: 'UK numbers split 70/30, priced', value: { position: 10, match: { prefixes: ['44'] }, mode: 'weighted', carriers: [{ carrierId: 'carrier-a', weight: 70 }, { carrierId: 'carrier-b', weight: 30 }], price: { amount: '0.0125', currency: 'EUR' } } },
        dedicated: { summary: 'One account on a carrier of its own, with a backup', value: { position: 1, match: { accountIds: ['acme'] }, carriers: [{ carrierId: 'carrier-b' }, { carrierId: 'carrier-a' }] } },
      },
      refusals: {
        description: 'A field out of its range or of the wrong type, a country without a numbering plan, a carrier named twice, or a routeId that is not 1-40 of a-z, 0-9 and - (1000). Nothing is changed.',
        examples: {
          country: { code: ApiErrorCode.InvalidParameter, message: 'match.countries[0] must be an ISO 3166-1 alpha-2 country code with a numbering plan, such as GB' },
          noCarriers: { code: ApiErrorCode.InvalidParameter, message: 'carriers must name at least one carrier' },
        },
      },
    }),
    ApiOkResponse({ type: RouteSchema, description: 'The route as stored now.', example: ROUTE_EXAMPLE }),
    ApiErrorResponses({
      409: { description: 'A carrier it names is not configured.', examples: { unknownCarrier: { code: ApiErrorCode.InvalidParameter, message: 'carrier carrier-c is not configured: create it first' } } },
    }),
  );

export const RemoveRouteDocs = () =>
  applyDecorators(
    ApiOperation({ operationId: 'removeRoute', summary: 'Remove a route' }),
    RouteIdParam(),
    ApiNoContentResponse({ description: 'Removed.' }),
    ApiJsonBodyErrors(),
    ApiErrorResponses({ 404: noRoute }),
  );
