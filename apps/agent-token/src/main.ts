import './tracing';
import 'reflect-metadata';
import { AGENT_TOKEN_COMMAND_TOPIC } from '@seed/agent-token-contracts';
import { loadConfig } from '@seed/platform-config';
import { createLogger } from '@seed/platform-logging';
import { bootstrapService } from '@seed/platform-nest';
import { AgentTokenConfig } from './agent-token.config';
import { AgentTokenModule } from './agent-token.module';

async function main(): Promise<void> {
  const config = loadConfig(AgentTokenConfig);
  const logger = createLogger('agent-token', config.LOG_LEVEL);
  await bootstrapService({
    module: AgentTokenModule.register(config, logger),
    logger,
    healthPort: config.HEALTH_PORT,
    commands: { topic: AGENT_TOKEN_COMMAND_TOPIC, groupId: 'agent-token' },
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
