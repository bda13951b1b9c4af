import { Controller, HttpCode, Post, Req } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import type { AgentSessionResponse } from '@seed/agent-token-contracts';
import { bearerToken } from '../accounts/api-key.guard';
import { ApiError } from '../http/api-error';
import { AgentCommands } from './agent-commands';
import { StartAgentSessionDocs } from './sessions.openapi';

/**
 * `POST /api/v1/sessions` with `Authorization: Bearer <auth_token>`: the agent logs in and learns
 * who it is and its room. The first login sends the guest link by SMS when the room has a phone
 * number. No body is needed; one that is sent must be JSON (json-body.middleware) and is ignored.
 */
@Controller('api/v1/sessions')
@ApiTags('Agent tokens')
export class SessionsController {
  constructor(private readonly agents: AgentCommands) {}

  @Post()
  @HttpCode(200)
  @StartAgentSessionDocs()
  start(@Req() req: Request): Promise<AgentSessionResponse> {
    const token = bearerToken(req);
    if (!token) throw ApiError.unauthorized('missing token: send Authorization: Bearer <auth_token>');
    if (!/^[\w-]+\.[\w-]+\.[\w-]+$/.test(token) || token.length > 4096) throw ApiError.unauthorized('invalid or expired token');
    return this.agents.startSession(token);
  }
}
