import { Module, type DynamicModule } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import type { Logger } from 'pino';
import { kafkaSecuritySettings, type PlatformConfig } from '@seed/platform-config';
import { DataSource } from 'typeorm';
import { CommandPipeline, EventStore, PreparedStatementClient, ProcessedMessages } from '@seed/platform-event-store';
import { KafkaConnection, kafkaSecurity, MessageProducer, parseBrokers } from '@seed/platform-kafka';
import { withLibpqSslModes } from '@seed/platform-config';
import { HealthController } from './health.controller';
import { PlatformMetrics } from './metrics/platform-metrics';
import { LOGGER, SERVICE_DEFINITION, type ServiceDefinition } from './platform.tokens';
import { ServiceLifecycle } from './service-lifecycle';
import { ServiceSchema } from './service-schema';
import { StartDeadline } from './start-up/start-deadline';
import { SubscriptionRegistry } from './subscription-registry';

/** The connection pool's settings (node-postgres options, through TypeORM's `extra`). */
export function databasePoolOptions(config: PlatformConfig): { max: number; idleTimeoutMillis: number; Client?: typeof PreparedStatementClient } {
  return {
    max: config.DATABASE_POOL_SIZE,
    idleTimeoutMillis: config.DATABASE_POOL_IDLE_MS,
    ...(config.DATABASE_PREPARED_STATEMENTS ? { Client: PreparedStatementClient } : {}),
  };
}

/**
 * The pieces every service is built from: its Postgres connection and schema, event store,
 * Kafka connection and producer, log followers, health and metrics endpoints.
 */
@Module({})
export class PlatformModule {
  static forService(service: ServiceDefinition, config: PlatformConfig, logger: Logger): DynamicModule {
    const schema = `${config.DATABASE_SCHEMA_PREFIX}${service.schema}`;
    return {
      module: PlatformModule,
      global: true,
      imports: [
        TypeOrmModule.forRoot({
          type: 'postgres',
          url: withLibpqSslModes(config.DATABASE_URL),
          synchronize: false,
          entities: [],
          extra: databasePoolOptions(config),
          // A database still starting is waited for (logged at each attempt) until START_TIMEOUT_MS.
          retryAttempts: Math.ceil(config.START_TIMEOUT_MS / 1000),
          retryDelay: 1000,
          logging: false,
        }),
      ],
      controllers: [HealthController],
      providers: [
        { provide: LOGGER, useValue: logger },
        { provide: StartDeadline, useValue: new StartDeadline(config.START_TIMEOUT_MS, logger) },
        { provide: SERVICE_DEFINITION, useValue: service },
        { provide: ServiceSchema, useValue: new ServiceSchema(schema) },
        { provide: EventStore, useValue: new EventStore(schema, service.upcasters) },
        { provide: ProcessedMessages, useValue: new ProcessedMessages(schema) },
        {
          provide: KafkaConnection,
          useValue: new KafkaConnection(
            {
              brokers: parseBrokers(config.KAFKA_BROKERS),
              clientId: service.name,
              prefix: config.KAFKA_TOPIC_PREFIX,
              replicationFactor: config.KAFKA_REPLICATION_FACTOR,
              sharedPartitions: config.KAFKA_TOPIC_PARTITIONS,
              security: kafkaSecurity(kafkaSecuritySettings(config)),
            },
            logger,
          ),
        },
        { provide: MessageProducer, useFactory: (c: KafkaConnection) => new MessageProducer(c), inject: [KafkaConnection] },
        SubscriptionRegistry,
        {
          provide: CommandPipeline,
          inject: [DataSource, EventStore, ProcessedMessages, SubscriptionRegistry],
          useFactory: (dataSource: DataSource, store: EventStore, processed: ProcessedMessages, subscriptions: SubscriptionRegistry) =>
            new CommandPipeline(dataSource, store, processed, (types) => subscriptions.wakeFor(types)),
        },
        ServiceLifecycle,
        PlatformMetrics,
      ],
      exports: [StartDeadline, LOGGER, SERVICE_DEFINITION, ServiceSchema, EventStore, ProcessedMessages, KafkaConnection, MessageProducer, SubscriptionRegistry, CommandPipeline],
    };
  }
}
