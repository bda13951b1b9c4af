import { Module, type DynamicModule, type OnModuleInit } from '@nestjs/common';
import type { Logger } from 'pino';
import { MessageProducer } from '@seed/platform-kafka';
import { PlatformModule, ServiceSchema, SubscriptionRegistry } from '@seed/platform-nest';
import type { SmsBatchConfig } from '../sms-batch.config';
import { smsBatchService } from '../sms-batch.service';
import { registerSmsBatchFollowers } from './sms-batch-followers';

/** What the follower thread runs: the platform pieces and sms-batch's followers, nothing else. */
@Module({})
export class SmsBatchFollowersModule implements OnModuleInit {
  constructor(
    private readonly subscriptions: SubscriptionRegistry,
    private readonly producer: MessageProducer,
    private readonly schema: ServiceSchema,
  ) {}

  static register(config: SmsBatchConfig, logger: Logger): DynamicModule {
    return { module: SmsBatchFollowersModule, imports: [PlatformModule.forService(smsBatchService, config, logger)] };
  }

  onModuleInit(): void {
    registerSmsBatchFollowers(this.subscriptions, this.producer, this.schema.name);
  }
}
