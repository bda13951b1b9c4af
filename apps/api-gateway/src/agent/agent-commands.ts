import { createHash, randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import {
  AGENT_TOKEN_COMMAND_TOPIC,
  type AgentSessionResponse,
  type AgentTokenResponse,
  type CreateAgentTokenData,
  type GetGuestRoomData,
  type GuestRoomResponse,
  type SealedReply,
  type StartAgentSessionData,
} from '@seed/agent-token-contracts';
import { openSealedText, parseKeyring, sealText, type Keyring } from '@seed/platform-secrets';
import { CommandClient } from '../commands/command-client';
import { GatewayConfig } from '../gateway.config';

/**
 * The agent API's commands to agent-token. Tokens cross Kafka only sealed (MESSAGE_SEALING_KEYS):
 * the bearer tokens forwarded here, and the answers that carry an auth_token or a guest link.
 * The gateway holds no signing key; agent-token verifies and issues every token.
 */
@Injectable()
export class AgentCommands {
  private readonly keys: Keyring;

  constructor(
    private readonly commands: CommandClient,
    config: GatewayConfig,
  ) {
    this.keys = parseKeyring(config.MESSAGE_SEALING_KEYS);
  }

  /**
   * Spread over every partition: two creations with one call_reference meet in agent-token's
   * reservation table, so they need no ordering, and one busy account uses every partition.
   */
  createToken(data: CreateAgentTokenData): Promise<AgentTokenResponse> {
    return this.opened(this.commands.send<SealedReply, CreateAgentTokenData>(AGENT_TOKEN_COMMAND_TOPIC, randomUUID(), 'CreateAgentToken', data));
  }

  /** Keyed by a digest of the token: one token's logins queue on one partition. */
  startSession(token: string): Promise<AgentSessionResponse> {
    const data: StartAgentSessionData = { sealedToken: sealText(this.keys, token) };
    return this.opened(this.commands.send<SealedReply, StartAgentSessionData>(AGENT_TOKEN_COMMAND_TOPIC, digest(token), 'StartAgentSession', data));
  }

  guestRoom(token: string): Promise<GuestRoomResponse> {
    const data: GetGuestRoomData = { sealedToken: sealText(this.keys, token) };
    return this.opened(this.commands.send<SealedReply, GetGuestRoomData>(AGENT_TOKEN_COMMAND_TOPIC, digest(token), 'GetGuestRoom', data));
  }

  private async opened<T>(reply: Promise<SealedReply>): Promise<T> {
    return JSON.parse(openSealedText(this.keys, (await reply).sealed)) as T;
  }
}

const digest = (token: string): string => createHash('sha256').update(token).digest('hex').slice(0, 32);
