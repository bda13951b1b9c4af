import { Inject, Module, type DynamicModule, type OnModuleInit } from '@nestjs/common';
import type { Logger } from 'pino';
import { MessageProducer } from '@seed/platform-kafka';
import { PlatformModule, ServiceSchema, SubscriptionRegistry } from '@seed/platform-nest';
import type { SmsBatchConfig } from './sms-batch.config';
import { smsBatchService } from './sms-batch.service';
import { FollowerThread } from './followers/follower-thread';
import { registerSmsBatchFollowers, RELAY_LINGER_MS, relayLingerProvider } from './followers/sms-batch-followers';
import { InboundQueriesHandler } from './inbound/inbound-queries.handler';
import { NumbersHandler } from './numbers/numbers.handler';
import { OptOutsHandler } from './opt-outs/opt-outs.handler';
import { MessageQueriesHandler } from './queries/message-queries.handler';
import { CarrierPasswords } from './routing-config/carrier-passwords';
import { RoutingConfigHandler } from './routing-config/routing-config.handler';
import { SealedTexts } from './sealed-texts';
import { SendingModule } from './sending/sending.module';
import { MAX_COMMAND_AGE_MS, SubmitBatchHandler } from './submit-batch/submit-batch.handler';

/** Where the followers of the log run: on this thread, or on a worker thread (the service's default). */
export type FollowersPlacement = 'here' | 'thread';
const FOLLOWERS_PLACEMENT = Symbol('FOLLOWERS_PLACEMENT');

@Module({})
export class SmsBatchModule implements OnModuleInit {
  constructor(
    private readonly subscriptions: SubscriptionRegistry,
    private readonly producer: MessageProducer,
    private readonly schema: ServiceSchema,
    @Inject(FOLLOWERS_PLACEMENT) private readonly followers: FollowersPlacement,
    @Inject(RELAY_LINGER_MS) private readonly relayLingerMs: number,
  ) {}

  /** `followers: 'thread'` needs the compiled worker entry (dist/), so tests keep them here. */
  static register(config: SmsBatchConfig, logger: Logger, followers: FollowersPlacement = 'here'): DynamicModule {
    return {
      module: SmsBatchModule,
      imports: [PlatformModule.forService(smsBatchService, config, logger), SendingModule.register(config)],
      controllers: [SubmitBatchHandler, MessageQueriesHandler, RoutingConfigHandler, OptOutsHandler, NumbersHandler, InboundQueriesHandler],
      providers: [
        { provide: SealedTexts, useValue: new SealedTexts(config.MESSAGE_SEALING_KEYS) },
        { provide: CarrierPasswords, useValue: new CarrierPasswords(config.MESSAGE_SEALING_KEYS) },
        { provide: FOLLOWERS_PLACEMENT, useValue: followers },
        relayLingerProvider(config),
        { provide: MAX_COMMAND_AGE_MS, useValue: config.SMS_BATCH_MAX_COMMAND_AGE_MS },
        ...(followers === 'thread' ? [FollowerThread] : []),
      ],
    };
  }

  onModuleInit(): void {
    if (this.followers === 'here') registerSmsBatchFollowers(this.subscriptions, this.producer, this.schema.name, this.relayLingerMs);
  }
}
