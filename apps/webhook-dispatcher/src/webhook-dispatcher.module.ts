import { Inject, Module, type BeforeApplicationShutdown, type DynamicModule, type OnApplicationBootstrap } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Logger } from 'pino';
import { commandTopic, deadLetterTopic, eventTopic, KafkaConnection, MessageProducer } from '@seed/platform-kafka';
import { LOGGER, PlatformModule, ServiceSchema, StartDeadline, type ServiceDefinition } from '@seed/platform-nest';
import { parseKeyring } from '@seed/platform-secrets';
import { SMS_BATCH_EVENT_TOPIC } from '@seed/sms-batch-contracts';
import { WEBHOOK_DISPATCHER_COMMAND_TOPIC } from '@seed/webhook-dispatcher-contracts';
import { parseAllowedHosts, signingSecretsAt } from '@seed/webhook-dispatcher-domain';
import { AccountWebhooksStore, SecretSealer } from './accounts/account-webhooks.store';
import { WebhookCommandsHandler } from './admin/webhook-commands.handler';
import { DeliveryIntake } from './intake/delivery-intake';
import { INTAKE_DEAD_LETTERS, StatusEventConsumer } from './intake/status-event.consumer';
import { DeliveryStore } from './sending/delivery-store';
import { DirectWriteDown } from './sending/direct-write-down';
import { SENDER_HAND_OVER, type SenderHandOver } from './sending/sender-hand-over';
import { WebhookHttpClient } from './sending/webhook-http-client';
import { WebhookQueueMetrics } from './sending/webhook-queue.metrics';
import { WebhookSender } from './sending/webhook-sender';
import type { WebhookDispatcherConfig } from './webhook-dispatcher.config';
import { FinalStatusReconciler } from './reconciliation/final-status-reconciler';
import { FinalStatusWatch } from './reconciliation/final-status-watch';
import { FinalStatusWatchConsumer } from './reconciliation/final-status-watch.consumer';
import { webhookMigrations } from './webhook.migrations';
import { TRANSIT_SEALER, WEBHOOK_OPTIONS } from './webhook-options';

export const webhookDispatcherService: ServiceDefinition = {
  name: 'webhook-dispatcher',
  schema: 'webhook_dispatcher',
  migrations: webhookMigrations,
  topics: [
    eventTopic(SMS_BATCH_EVENT_TOPIC),
    eventTopic('webhook-dispatcher.events.v1'),
    commandTopic(WEBHOOK_DISPATCHER_COMMAND_TOPIC),
    deadLetterTopic(WEBHOOK_DISPATCHER_COMMAND_TOPIC),
    INTAKE_DEAD_LETTERS,
  ],
};

/**
 * Delivers delivery-status webhooks: follows sms-batch's events (intake), sends due deliveries
 * (sender) and serves the admin API's webhook commands.
 */
@Module({})
export class WebhookDispatcherModule implements OnApplicationBootstrap, BeforeApplicationShutdown {
  constructor(
    private readonly sender: WebhookSender,
    private readonly consumer: StatusEventConsumer,
    private readonly watch: FinalStatusWatchConsumer,
    private readonly reconciler: FinalStatusReconciler,
    private readonly deadline: StartDeadline,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  static register(config: WebhookDispatcherConfig, logger: Logger): DynamicModule {
    const sealer = new SecretSealer(parseKeyring(config.WEBHOOK_SECRET_SEALING_KEYS));
    return {
      module: WebhookDispatcherModule,
      imports: [PlatformModule.forService(webhookDispatcherService, config, logger)],
      controllers: [WebhookCommandsHandler],
      providers: [
        { provide: SecretSealer, useValue: sealer },
        { provide: TRANSIT_SEALER, useValue: new SecretSealer(parseKeyring(config.MESSAGE_SEALING_KEYS)) },
        { provide: WEBHOOK_OPTIONS, useValue: { secretOverlapMs: config.WEBHOOK_SECRET_OVERLAP_MS } },
        AccountWebhooksStore,
        DeliveryStore,
        DeliveryIntake,
        DirectWriteDown,
        WebhookQueueMetrics,
        {
          provide: WebhookSender,
          inject: [DeliveryStore, AccountWebhooksStore, DirectWriteDown, DataSource],
          useFactory: (store: DeliveryStore, accounts: AccountWebhooksStore, directWrites: DirectWriteDown, dataSource: DataSource) =>
            new WebhookSender(
              store,
              new WebhookHttpClient({
                timeoutMs: config.WEBHOOK_TIMEOUT_MS,
                allowedHosts: parseAllowedHosts(config.WEBHOOK_ALLOWED_HOSTS),
                socketsPerEndpoint: config.WEBHOOK_ENDPOINT_CONCURRENCY,
              }),
              async (accountIds) => {
                const loaded = await accounts.load(dataSource.manager, accountIds, false);
                const now = Date.now();
                return new Map([...loaded].map(([id, a]) => [id, signingSecretsAt(a.state, now).map((s) => sealer.open(s))]));
              },
              logger,
              {
                maxHeld: config.WEBHOOK_MAX_IN_FLIGHT,
                endpointConcurrency: config.WEBHOOK_ENDPOINT_CONCURRENCY,
                leaseMs: config.WEBHOOK_LEASE_MS,
                timeoutMs: config.WEBHOOK_TIMEOUT_MS,
                idleMs: config.WEBHOOK_IDLE_MS,
                retry: { baseDelayMs: config.WEBHOOK_RETRY_BASE_MS, maxDelayMs: config.WEBHOOK_RETRY_MAX_DELAY_MS, maxAgeMs: config.WEBHOOK_RETRY_MAX_AGE_MS },
                breaker: { failureThreshold: config.WEBHOOK_BREAKER_FAILURES, cooldownMs: config.WEBHOOK_BREAKER_COOLDOWN_MS },
                writeDown: (deliveries, leaseMs) => dataSource.transaction((tx) => directWrites.writeDown(tx, deliveries, leaseMs)),
                recordSent: (eventIds) => directWrites.recordSent(dataSource.manager, eventIds),
              },
            ),
        },
        // The intake knows the sender only as its hand-over; the sender knows nothing of the intake.
        { provide: SENDER_HAND_OVER, useExisting: WebhookSender },
        {
          provide: StatusEventConsumer,
          inject: [KafkaConnection, MessageProducer, DataSource, DeliveryIntake, SENDER_HAND_OVER],
          useFactory: (connection: KafkaConnection, producer: MessageProducer, dataSource: DataSource, intake: DeliveryIntake, sender: SenderHandOver) =>
            new StatusEventConsumer(connection, producer, dataSource, intake, logger, sender),
        },
        // The final-status reconciliation: a consumer group of its own beside the intake, and the
        // report of what neither the intake nor the sender handled in time.
        { provide: FinalStatusWatch, inject: [DataSource, ServiceSchema], useFactory: (dataSource: DataSource, schema: ServiceSchema) => new FinalStatusWatch(dataSource, schema.name) },
        {
          provide: FinalStatusWatchConsumer,
          inject: [KafkaConnection, MessageProducer, DataSource, DeliveryIntake, FinalStatusWatch],
          useFactory: (connection: KafkaConnection, producer: MessageProducer, dataSource: DataSource, intake: DeliveryIntake, watch: FinalStatusWatch) =>
            new FinalStatusWatchConsumer(connection, producer, dataSource, intake, watch, logger),
        },
        {
          provide: FinalStatusReconciler,
          inject: [DataSource, FinalStatusWatch],
          useFactory: (dataSource: DataSource, watch: FinalStatusWatch) => new FinalStatusReconciler(dataSource, watch, config.WEBHOOK_RECONCILE_AFTER_MS, logger),
        },
      ],
    };
  }

  async onApplicationBootstrap(): Promise<void> {
    this.sender.start();
    await this.deadline.retry('kafka: status-event consumer', () => this.consumer.start());
    await this.deadline.retry('kafka: final-status watch', () => this.watch.start());
    this.reconciler.start();
    this.logger.info('webhook intake and sender started');
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.consumer.stop();
    await this.watch.stop();
    await this.reconciler.stop();
    await this.sender.stop();
    this.logger.info('webhook intake and sender stopped');
  }
}
