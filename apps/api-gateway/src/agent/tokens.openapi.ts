import { applyDecorators } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { ApiErrorCode } from '@seed/contracts';
import { ApiErrorResponses } from '../openapi/api-error.openapi';
import { ApiJsonBody } from '../openapi/api-json-body.openapi';

/** A token request as token-request.validation.ts checks it; every field optional, the body too. */
@ApiSchema({ name: 'AgentTokenRequest' })
export class AgentTokenRequestSchema {
  @ApiPropertyOptional({ type: 'boolean', nullable: true, description: 'true: a room is created with the token (default false: only `auth_token`).' })
  create_room?: boolean | null;

  @ApiPropertyOptional({
    type: 'string',
    nullable: true,
    description: 'International number (E.164; `+`, `00` or bare country code) the guest link is sent to by SMS when the agent first logs in. Not valid: 400, code 1002, even without `create_room`.',
    example: '+447911123456',
  })
  phone_number?: string | null;

  @ApiPropertyOptional({
    type: 'string',
    pattern: '^[A-Za-z0-9_-]{8,20}$',
    nullable: true,
    description: "The room's reference, unique among the account's active rooms (409 otherwise); generated (12 characters) when a room is created without one.",
    example: 'case-20300115-42',
  })
  call_reference?: string | null;
}

@ApiSchema({ name: 'AgentToken' })
export class AgentTokenSchema {
  @ApiProperty({ type: 'string', description: 'Signed, expiring token (JWT) the agent logs in with (`POST /api/v1/sessions`).' })
  auth_token!: string;

  @ApiPropertyOptional({ type: 'string', description: 'When a room was created.' })
  call_reference?: string;

  @ApiPropertyOptional({ type: 'string', format: 'uri', description: 'When a room was created: the page the guest opens.' })
  guest_link?: string;
}

const JWT = 'eyJhbGciOiJIUzI1NiIsImtpZCI6ImsxIiwidHlwIjoiSldUIn0.eyJzdWIiOiJhZ2VudCJ9.c2lnbmF0dXJl';

export const CreateAgentTokenDocs = () =>
  applyDecorators(
    ApiOperation({
      operationId: 'createAgentToken',
      summary: 'Create an agent token, optionally with a room',
      description: 'The body may be omitted or `{}`: then only `auth_token` is returned. A guest-link SMS is sent from the account\'s `<accountId>_hq` sub-account.',
    }),
    ApiJsonBody({
      type: AgentTokenRequestSchema,
      required: false,
      examples: {
        tokenOnly: { summary: 'Only a token', value: {} },
        roomWithSms: { summary: 'A room whose link is sent by SMS at the first login', value: { create_room: true, phone_number: '+447911123456', call_reference: 'case-20300115-42' } },
      },
      refusals: {
        description: '`create_room` not a boolean or `call_reference` not 8 to 20 of A-Z, a-z, 0-9, _ and - (1000), `phone_number` not a valid international number (1002).',
        examples: { callReference: { code: ApiErrorCode.InvalidParameter, message: 'call_reference must be 8 to 20 characters of A-Z, a-z, 0-9, _ and -' } },
      },
    }),
    ApiOkResponse({
      type: AgentTokenSchema,
      description: 'The token; with `create_room`, the room\'s reference and guest link.',
      example: { auth_token: JWT, call_reference: 'case-20300115-42', guest_link: 'https://agent.acme.example/guest/Zy1hYmNkZWZnaGlqa2xtbm9w' },
    }),
    ApiErrorResponses({
      409: {
        description: "The `call_reference` is in use by an active room of the account.",
        examples: { inUse: { code: ApiErrorCode.InvalidParameter, message: 'call_reference case-20300115-42 is in use by an active room of this account' } },
      },
    }),
  );
