import { Inject, Module, type DynamicModule, type OnModuleInit } from '@nestjs/common';
import type { Logger } from 'pino';
import { MessageProducer } from '@seed/platform-kafka';
import { PlatformModule, ServiceSchema, SubscriptionRegistry } from '@seed/platform-nest';
import type { SmsBatchConfig } from '../sms-batch.config';
import { smsBatchService } from '../sms-batch.service';
import { registerSmsBatchFollowers, RELAY_LINGER_MS, relayLingerProvider } from './sms-batch-followers';


/** What the follower thread runs: the platform pieces and sms-batch's followers, nothing else. */
@Module({})
export class SmsBatchFollowersModule implements OnModuleInit {
  constructor(
    private readonly subscriptions: SubscriptionRegistry,
    private readonly producer: MessageProducer,
    private readonly schema: ServiceSchema,
    @Inject(RELAY_LINGER_MS) private readonly relayLingerMs: number,
  ) {}

  static register(config: SmsBatchConfig, logger: Logger): DynamicModule {
    return {
      module: SmsBatchFollowersModule,
      imports: [PlatformModule.forService(smsBatchService, config, logger)],
      providers: [relayLingerProvider(config)],
    };
  }

  onModuleInit(): void {
    registerSmsBatchFollowers(this.subscriptions, this.producer, this.schema.name, this.relayLingerMs);
  }
}
