import { Module, type DynamicModule } from '@nestjs/common';
import type { Logger } from 'pino';
import { commandTopic, eventTopic } from '@seed/platform-kafka';
import { PlatformModule, type ServiceDefinition } from '@seed/platform-nest';
import type { VerificationConfig } from './verification.config';

export const verificationService: ServiceDefinition = {
  name: 'verification',
  schema: 'verification',
  migrations: [],
  topics: [commandTopic('verification.commands.v1'), eventTopic('verification.events.v1')],
};

/** Owns mobile verifications (Verify v2): its operations arrive with a later issue; today it boots, migrates its schema, creates its topics and reports health. */
@Module({})
export class VerificationModule {
  static register(config: VerificationConfig, logger: Logger): DynamicModule {
    return { module: VerificationModule, imports: [PlatformModule.forService(verificationService, config, logger)] };
  }
}
