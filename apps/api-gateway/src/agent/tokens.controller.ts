import { Body, Controller, HttpCode, Post, Req, UseGuards } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { AgentTokenResponse } from '@seed/agent-token-contracts';
import { ApiKeyGuard, type AuthenticatedRequest } from '../accounts/api-key.guard';
import { ApiKeyProtected } from '../openapi/protected-by.openapi';
import { AgentCommands } from './agent-commands';
import { toCreateAgentTokenData } from './token-request.validation';
import { CreateAgentTokenDocs } from './tokens.openapi';

/** `POST /api/v1/tokens` on the agent listener: an auth_token, and with create_room a room. */
@Controller('api/v1/tokens')
@UseGuards(ApiKeyGuard)
@ApiTags('Agent tokens')
@ApiKeyProtected({ subAccountInPath: false })
export class TokensController {
  constructor(private readonly agents: AgentCommands) {}

  @Post()
  @HttpCode(200)
  @CreateAgentTokenDocs()
  create(@Body() body: unknown, @Req() req: AuthenticatedRequest): Promise<AgentTokenResponse> {
    return this.agents.createToken(toCreateAgentTokenData(body, req.accountId));
  }
}
