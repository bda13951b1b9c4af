import './tracing';
import 'reflect-metadata';
import { loadConfig } from '@seed/platform-config';
import { createLogger } from '@seed/platform-logging';
import { bootstrapService } from '@seed/platform-nest';
import { VERIFICATION_COMMAND_TOPIC } from '@seed/verification-contracts';
import { VerificationConfig } from './verification.config';
import { VerificationModule } from './verification.module';

async function main(): Promise<void> {
  const config = loadConfig(VerificationConfig);
  const logger = createLogger('verification', config.LOG_LEVEL);
  await bootstrapService({
    module: VerificationModule.register(config, logger),
    logger,
    healthPort: config.HEALTH_PORT,
    // The command topic has 12 partitions: up to this many commands are decided at once, each
    // mostly waiting on PostgreSQL and Kafka round trips. Per-key (per-uid) order holds.
    commands: { topic: VERIFICATION_COMMAND_TOPIC, groupId: 'verification', concurrency: config.VERIFY_COMMAND_CONCURRENCY },
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
