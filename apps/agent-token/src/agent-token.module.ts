import { Module, type DynamicModule } from '@nestjs/common';
import type { Logger } from 'pino';
import { commandTopic, eventTopic } from '@seed/platform-kafka';
import { PlatformModule, type ServiceDefinition } from '@seed/platform-nest';
import type { AgentTokenConfig } from './agent-token.config';

export const agentTokenService: ServiceDefinition = {
  name: 'agent-token',
  schema: 'agent_token',
  migrations: [],
  topics: [commandTopic('agent-token.commands.v1'), eventTopic('agent-token.events.v1')],
};

/** Owns agent tokens and guest rooms: its operations arrive with a later issue; today it boots, migrates its schema, creates its topics and reports health. */
@Module({})
export class AgentTokenModule {
  static register(config: AgentTokenConfig, logger: Logger): DynamicModule {
    return { module: AgentTokenModule, imports: [PlatformModule.forService(agentTokenService, config, logger)] };
  }
}
