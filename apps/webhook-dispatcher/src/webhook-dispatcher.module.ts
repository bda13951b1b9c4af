import { Module, type DynamicModule } from '@nestjs/common';
import type { Logger } from 'pino';
import { eventTopic } from '@seed/platform-kafka';
import { PlatformModule, type ServiceDefinition } from '@seed/platform-nest';
import { SMS_BATCH_EVENT_TOPIC } from '@seed/sms-batch-contracts';
import type { WebhookDispatcherConfig } from './webhook-dispatcher.config';

export const webhookDispatcherService: ServiceDefinition = {
  name: 'webhook-dispatcher',
  schema: 'webhook_dispatcher',
  migrations: [],
  topics: [eventTopic(SMS_BATCH_EVENT_TOPIC), eventTopic('webhook-dispatcher.events.v1')],
};

/** Delivers delivery-status webhooks from sms-batch's events: the delivery arrives with a later issue; today it boots, migrates its schema, creates its topics and reports health. */
@Module({})
export class WebhookDispatcherModule {
  static register(config: WebhookDispatcherConfig, logger: Logger): DynamicModule {
    return { module: WebhookDispatcherModule, imports: [PlatformModule.forService(webhookDispatcherService, config, logger)] };
  }
}
