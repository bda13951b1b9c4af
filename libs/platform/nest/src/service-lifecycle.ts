import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit, type OnApplicationBootstrap } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Logger } from 'pino';
import { eventStoreSchema, runMigrations } from '@seed/platform-event-store';
import { ensureTopics, KafkaConnection, MessageProducer } from '@seed/platform-kafka';
import { stopTracing } from '@seed/platform-telemetry';
import { LOGGER, SERVICE_DEFINITION, type ServiceDefinition } from './platform.tokens';
import { SubscriptionRegistry } from './subscription-registry';
import { ServiceSchema } from './service-schema';
import { StartDeadline } from './start-up/start-deadline';

/**
 * Boot order every service shares: migrate its schema, create its topics, connect the producer,
 * then (after every module is ready) start following its log. Shutdown runs it backwards, and
 * sends the spans still buffered when tracing is on.
 */
@Injectable()
export class ServiceLifecycle implements OnModuleInit, OnApplicationBootstrap, OnApplicationShutdown {
  constructor(
    @Inject(SERVICE_DEFINITION) private readonly service: ServiceDefinition,
    @Inject(LOGGER) private readonly logger: Logger,
    private readonly schema: ServiceSchema,
    private readonly dataSource: DataSource,
    private readonly connection: KafkaConnection,
    private readonly producer: MessageProducer,
    private readonly subscriptions: SubscriptionRegistry,
    private readonly deadline: StartDeadline,
  ) {}

  async onModuleInit(): Promise<void> {
    const applied = await this.deadline.retry('postgres: migrations', () =>
      runMigrations(this.dataSource, this.schema.name, [...eventStoreSchema, ...this.service.migrations]),
    );
    if (applied.length > 0) this.logger.info({ schema: this.schema.name, applied }, 'migrations applied');
    await this.deadline.retry('kafka: topics', () => ensureTopics(this.connection, this.service.topics));
    await this.deadline.retry('kafka: producer', () => this.producer.connect());
  }

  onApplicationBootstrap(): void {
    this.subscriptions.startAll();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.producer.disconnect();
    // The last spans (this shutdown's own work included) are sent before the process ends.
    await stopTracing().catch((error: unknown) => this.logger.warn({ err: error }, 'spans not sent at shutdown'));
  }
}
