import './tracing';
import 'reflect-metadata';
import { loadConfig } from '@seed/platform-config';
import { createLogger } from '@seed/platform-logging';
import { bootstrapService } from '@seed/platform-nest';
import { SMS_BATCH_COMMAND_TOPIC, SMS_BATCH_SERVICE_COMMAND_TOPIC, SMS_BATCH_SERVICE_COMMAND_TYPES } from '@seed/sms-batch-contracts';
import { SmsBatchConfig } from './sms-batch.config';
import { SmsBatchModule } from './sms-batch.module';

async function main(): Promise<void> {
  const config = loadConfig(SmsBatchConfig);
  const logger = createLogger('sms-batch', config.LOG_LEVEL);
  await bootstrapService({
    module: SmsBatchModule.register(config, logger, config.FOLLOWER_THREAD ? 'thread' : 'here'),
    logger,
    healthPort: config.HEALTH_PORT,
    commands: {
      topic: SMS_BATCH_COMMAND_TOPIC,
      groupId: 'sms-batch',
      // The neighbouring services write only this topic (their Kafka ACLs), and only sends are taken from it.
      limitedTopics: { [SMS_BATCH_SERVICE_COMMAND_TOPIC]: SMS_BATCH_SERVICE_COMMAND_TYPES },
    },
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
