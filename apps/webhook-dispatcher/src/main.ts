import './tracing';
import 'reflect-metadata';
import { loadConfig } from '@seed/platform-config';
import { createLogger } from '@seed/platform-logging';
import { bootstrapService } from '@seed/platform-nest';
import { WEBHOOK_DISPATCHER_COMMAND_TOPIC } from '@seed/webhook-dispatcher-contracts';
import { WebhookDispatcherConfig } from './webhook-dispatcher.config';
import { WebhookDispatcherModule } from './webhook-dispatcher.module';

async function main(): Promise<void> {
  const config = loadConfig(WebhookDispatcherConfig);
  const logger = createLogger('webhook-dispatcher', config.LOG_LEVEL);
  await bootstrapService({
    module: WebhookDispatcherModule.register(config, logger),
    logger,
    healthPort: config.HEALTH_PORT,
    commands: { topic: WEBHOOK_DISPATCHER_COMMAND_TOPIC, groupId: 'webhook-dispatcher' },
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
