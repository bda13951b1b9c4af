import { applyDecorators } from '@nestjs/common';
import { ApiExtraModels, ApiOperation, ApiParam, ApiProperty, ApiResponse, ApiSchema, getSchemaPath } from '@nestjs/swagger';
import { ApiErrorCode } from '@seed/contracts';
import { ApiErrorResponses, ApiErrorSchema, ErrorCases } from '../openapi/api-error.openapi';

@ApiSchema({ name: 'GuestRoom', description: 'What the guest page shows.' })
export class GuestRoomSchema {
  @ApiProperty({ type: 'string' })
  call_reference!: string;

  @ApiProperty({ type: 'string', enum: ['waiting', 'agent_joined', 'expired'] })
  state!: string;

  @ApiProperty({ type: 'string', format: 'date-time' })
  expires_at!: string;
}

const HTML = { schema: { type: 'string', description: 'An HTML page.' } };
const NO_STORE = { 'Cache-Control': { description: 'no-store: the link carries the token.', schema: { type: 'string' } } };

/** A refusal of the link: an HTML page for browsers, the contract's error body for `Accept: application/json`. */
const refusal = (status: 401 | 404, description: string, code: number, message: string) =>
  ApiResponse({
    status,
    description,
    headers: NO_STORE,
    content: {
      'text/html': HTML,
      'application/json': { schema: { $ref: getSchemaPath(ApiErrorSchema) }, example: { code, message, errorId: '0b3f6f0e-7d1c-4a53-9a51-2f1d9c1e5b7a', timestamp: '2030-01-15T10:00:00.000Z' } },
    },
  });

export const GuestPageDocs = () =>
  applyDecorators(
    ApiOperation({
      operationId: 'showGuestPage',
      summary: 'The page a guest link opens',
      description: 'Browsers get an HTML page (which reloads itself while the room waits); `Accept: application/json` gets the room as JSON. Never cached, sent without referrer.',
    }),
    ApiParam({ name: 'token', description: 'The guest token of the link.', schema: { type: 'string', pattern: '^[A-Za-z0-9_.-]{1,200}$', example: 'Zy1hYmNkZWZnaGlqa2xtbm9w' } }),
    ApiExtraModels(GuestRoomSchema, ApiErrorSchema),
    ApiResponse({
      status: 200,
      description: 'The room.',
      headers: NO_STORE,
      content: {
        'text/html': HTML,
        'application/json': { schema: { $ref: getSchemaPath(GuestRoomSchema) }, example: { call_reference: 'case-20300115-42', state: 'waiting', expires_at: '2030-01-15T10:15:00.000Z' } },
      },
    }),
    refusal(401, 'The link is not valid or has expired.', ApiErrorCode.Unauthorized, 'this guest link is not valid or has expired'),
    refusal(404, 'The room of the link does not exist.', ApiErrorCode.NotFound, 'no such room'),
    ApiErrorResponses({
      429: {
        description: "Over the client address's rate of guest page loads (`GUEST_PAGE_PER_MINUTE`); the contract's error body. `Retry-After` says when to try again.",
        examples: { rateLimited: { code: ApiErrorCode.TooManyRequests, message: 'too many requests from this address: limited to 120 a minute' } },
      },
      503: ErrorCases.unavailable,
    }),
  );
