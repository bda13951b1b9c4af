import { Module, type DynamicModule, type OnModuleInit } from '@nestjs/common';
import type { Logger } from 'pino';
import { MessageProducer, OutboxRelay } from '@seed/platform-kafka';
import { PlatformModule, ServiceSchema, SubscriptionRegistry } from '@seed/platform-nest';
import { SMS_BATCH_EVENT_TOPIC } from '@seed/sms-batch-contracts';
import type { SmsBatchConfig } from './sms-batch.config';
import { smsBatchProjections, smsBatchService } from './sms-batch.service';
import { toPublicSmsBatchEvent } from './public-events';
import { MessageQueriesHandler } from './queries/message-queries.handler';
import { SealedTexts } from './sealed-texts';
import { SendingModule } from './sending/sending.module';
import { SubmitBatchHandler } from './submit-batch/submit-batch.handler';

@Module({})
export class SmsBatchModule implements OnModuleInit {
  constructor(
    private readonly subscriptions: SubscriptionRegistry,
    private readonly producer: MessageProducer,
    private readonly schema: ServiceSchema,
  ) {}

  static register(config: SmsBatchConfig, logger: Logger): DynamicModule {
    return {
      module: SmsBatchModule,
      imports: [PlatformModule.forService(smsBatchService, config, logger), SendingModule.register(config)],
      controllers: [SubmitBatchHandler, MessageQueriesHandler],
      providers: [{ provide: SealedTexts, useValue: new SealedTexts(config.MESSAGE_SEALING_KEYS) }],
    };
  }

  onModuleInit(): void {
    for (const projection of smsBatchProjections(this.schema.name)) this.subscriptions.register(projection);
    this.subscriptions.register(new OutboxRelay(this.producer, SMS_BATCH_EVENT_TOPIC, toPublicSmsBatchEvent));
  }
}
