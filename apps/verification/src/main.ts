import 'reflect-metadata';
import { loadConfig } from '@seed/platform-config';
import { isPermanentDatabaseError } from '@seed/platform-event-store';
import { KafkaCommandServer, KafkaConnection, MessageProducer } from '@seed/platform-kafka';
import { createLogger } from '@seed/platform-logging';
import { bootstrapService } from '@seed/platform-nest';
import { VERIFICATION_COMMAND_TOPIC } from '@seed/verification-contracts';
import { VerificationConfig } from './verification.config';
import { VerificationModule } from './verification.module';

async function main(): Promise<void> {
  const config = loadConfig(VerificationConfig);
  const logger = createLogger('verification', config.LOG_LEVEL);
  const app = await bootstrapService({ module: VerificationModule.register(config, logger), logger, healthPort: config.HEALTH_PORT });
  // Several consumers in one group (instead of bootstrapService's one): each handles up to three
  // partitions at once, and a command waits mostly on PostgreSQL and Kafka round trips, so more
  // of them in flight is what raises throughput. Per-key order holds: a partition has one consumer.
  for (let i = 0; i < config.VERIFY_COMMAND_CONSUMERS; i++) {
    app.connectMicroservice(
      {
        strategy: new KafkaCommandServer({
          connection: app.get(KafkaConnection),
          producer: app.get(MessageProducer),
          logger,
          isPermanent: isPermanentDatabaseError,
          topic: VERIFICATION_COMMAND_TOPIC,
          groupId: 'verification',
        }),
      },
      { inheritAppConfig: true },
    );
  }
  await app.startAllMicroservices();
  logger.info({ consumers: config.VERIFY_COMMAND_CONSUMERS }, 'command consumers started');
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
