import { randomUUID } from 'node:crypto';
import { Inject, Module, type BeforeApplicationShutdown, type DynamicModule, type OnApplicationBootstrap, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Logger } from 'pino';
import { EventStore } from '@seed/platform-event-store';
import { CommandBus, KafkaConnection, MessageProducer, OutboxRelay } from '@seed/platform-kafka';
import { LOGGER, PlatformModule, ServiceSchema, StartDeadline, SubscriptionRegistry } from '@seed/platform-nest';
import { VERIFICATION_EVENT_TOPIC } from '@seed/verification-contracts';
import { AbuseLimits } from './limits/abuse-limits';
import { VerificationSmsSender } from './sms/verification-sms.sender';
import { VerificationConfig } from './verification.config';
import { VERIFICATION_REPLY_TOPIC, verificationService } from './verification.service';
import { CheckVerificationHandler } from './verifications/check-verification.handler';
import { CodeSecrets } from './verifications/code-secrets';
import { MAX_COMMAND_AGE_MS } from './verifications/command-failures';
import { VERIFICATION_PUBLIC_SHAPE } from './verifications/public-events';
import { StartVerificationHandler } from './verifications/start-verification.handler';
import { VerificationStore } from './verifications/verification-store';

const PRUNE_EVERY_MS = 60_000;
const RELAY_PRODUCER = Symbol('RELAY_PRODUCER');
const SMS_PRODUCER = Symbol('SMS_PRODUCER');

/**
 * Mobile verifications (Verify v2): decides generations and validations, sends each code's SMS
 * through sms-batch (a follower of the log), enforces the abuse limits, publishes its events.
 */
@Module({})
export class VerificationModule implements OnModuleInit, OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown {
  private pruner: NodeJS.Timeout | undefined;

  constructor(
    private readonly subscriptions: SubscriptionRegistry,
    @Inject(RELAY_PRODUCER) private readonly relayProducer: MessageProducer,
    @Inject(SMS_PRODUCER) private readonly smsProducer: MessageProducer,
    private readonly bus: CommandBus,
    private readonly verifications: VerificationStore,
    private readonly limits: AbuseLimits,
    private readonly dataSource: DataSource,
    private readonly deadline: StartDeadline,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  static register(config: VerificationConfig, logger: Logger): DynamicModule {
    return {
      module: VerificationModule,
      imports: [PlatformModule.forService(verificationService, config, logger)],
      controllers: [StartVerificationHandler, CheckVerificationHandler],
      providers: [
        { provide: VerificationConfig, useValue: config },
        { provide: MAX_COMMAND_AGE_MS, useValue: config.VERIFY_MAX_COMMAND_AGE_MS },
        { provide: CodeSecrets, useValue: new CodeSecrets(config.VERIFY_CODE_HASH_KEYS, config.MESSAGE_SEALING_KEYS) },
        { provide: VerificationStore, useFactory: (store: EventStore, schema: ServiceSchema) => new VerificationStore(store, schema.name), inject: [EventStore, ServiceSchema] },
        {
          provide: AbuseLimits,
          useFactory: (schema: ServiceSchema) =>
            new AbuseLimits(schema.name, {
              perDestinationPerHour: config.VERIFY_MAX_PER_DESTINATION_PER_HOUR,
              perSubAccountPerMinute: config.VERIFY_MAX_PER_SUBACCOUNT_PER_MINUTE,
            }),
          inject: [ServiceSchema],
        },
        // The SMS requests and the outbox relay get producers of their own: a producer has one
        // request in flight at a time, and the command replies should not queue behind them.
        { provide: SMS_PRODUCER, useFactory: (connection: KafkaConnection) => new MessageProducer(connection), inject: [KafkaConnection] },
        { provide: RELAY_PRODUCER, useFactory: (connection: KafkaConnection) => new MessageProducer(connection), inject: [KafkaConnection] },
        {
          provide: CommandBus,
          useFactory: (connection: KafkaConnection, producer: MessageProducer) =>
            new CommandBus(connection, producer, logger, { replyTopic: VERIFICATION_REPLY_TOPIC, instanceId: randomUUID(), timeoutMs: config.VERIFY_SMS_TIMEOUT_MS }),
          inject: [KafkaConnection, SMS_PRODUCER],
        },
      ],
    };
  }

  // After the platform's init (schema migrated, topics created), before the log followers start.
  async onModuleInit(): Promise<void> {
    await this.deadline.retry('kafka: reply consumer', () => this.bus.start());
    this.subscriptions.register(new VerificationSmsSender(this.verifications, this.bus, this.logger), { batchSize: 500 });
    this.subscriptions.register(new OutboxRelay(this.relayProducer, VERIFICATION_EVENT_TOPIC, VERIFICATION_PUBLIC_SHAPE));
  }

  onApplicationBootstrap(): void {
    this.pruner = setInterval(() => {
      this.limits.prune(this.dataSource.manager, new Date()).catch((error: unknown) => this.logger.error({ err: error }, 'pruning SMS counts failed'));
    }, PRUNE_EVERY_MS);
    this.pruner.unref();
  }

  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.pruner);
    await this.bus.stop();
  }

  // After every follower stopped (the registry stops them before shutdown).
  async onApplicationShutdown(): Promise<void> {
    await Promise.all([this.relayProducer.disconnect(), this.smsProducer.disconnect()]);
  }
}
