import { applyDecorators } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiProperty, ApiSchema } from '@nestjs/swagger';
import { ApiErrorCode } from '@seed/contracts';
import { ApiErrorResponses, ErrorCases } from '../openapi/api-error.openapi';
import { ApiJsonBodyErrors } from '../openapi/api-json-body.openapi';
import { SecuritySchemes } from '../openapi/security-schemes';

const ROOM_STATES = ['waiting', 'agent_joined', 'expired'];

@ApiSchema({ name: 'Agent' })
export class AgentSchema {
  @ApiProperty({ type: 'string' })
  agent_id!: string;

  @ApiProperty({ type: 'string' })
  account_id!: string;

  @ApiProperty({ type: 'string', format: 'date-time', description: 'When the `auth_token` stops being accepted.' })
  expires_at!: string;
}

@ApiSchema({ name: 'AgentRoom' })
export class AgentRoomSchema {
  @ApiProperty({ type: 'string' })
  call_reference!: string;

  @ApiProperty({ type: 'string', format: 'uri' })
  guest_link!: string;

  @ApiProperty({ type: 'string', enum: ROOM_STATES })
  state!: string;

  @ApiProperty({ type: 'string', format: 'date-time', description: 'Until when the guest may wait for an agent; no longer relevant once one joined.' })
  expires_at!: string;

  @ApiProperty({ type: 'boolean', description: 'Whether the guest link is (or was) sent by SMS at the first login.' })
  guest_link_sms!: boolean;
}

@ApiSchema({ name: 'AgentSession', description: 'Who the agent is, and its room.' })
export class AgentSessionSchema {
  @ApiProperty({ type: () => AgentSchema })
  agent!: AgentSchema;

  @ApiProperty({ type: () => AgentRoomSchema, nullable: true, description: 'null when the token was made without a room.' })
  room!: AgentRoomSchema | null;
}

export const StartAgentSessionDocs = () =>
  applyDecorators(
    ApiOperation({
      operationId: 'startAgentSession',
      summary: 'Log an agent in',
      description: 'With the `auth_token` as bearer. The first login sends the guest link by SMS when the room has a phone number (never twice). No body is needed; one that is sent must be JSON and is ignored.',
    }),
    ApiBearerAuth(SecuritySchemes.agentToken),
    ApiOkResponse({
      type: AgentSessionSchema,
      description: 'The agent and its room.',
      example: {
        agent: { agent_id: '01939a52-4c0e-7f3a-9c57-2b9e8a9b0c01', account_id: 'acme', expires_at: '2030-01-15T11:00:00.000Z' },
        room: { call_reference: 'case-20300115-42', guest_link: 'https://agent.acme.example/guest/Zy1hYmNkZWZnaGlqa2xtbm9w', state: 'agent_joined', expires_at: '2030-01-15T10:15:00.000Z', guest_link_sms: true },
      },
    }),
    ApiJsonBodyErrors(),
    ApiErrorResponses({
      401: {
        description: 'No token, or one that is malformed, expired or tampered with.',
        examples: { invalid: { code: ApiErrorCode.Unauthorized, message: 'invalid or expired token' } },
      },
      429: {
        description: "Over the client address's login rate (`AGENT_LOGIN_PER_MINUTE`, checked before the body is read). `Retry-After` says when to try again.",
        examples: { rateLimited: { code: ApiErrorCode.TooManyRequests, message: 'too many requests from this address: limited to 30 a minute' } },
      },
      503: ErrorCases.unavailable,
    }),
  );
