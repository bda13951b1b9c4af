import { randomUUID } from 'node:crypto';
import { Inject, Module, type DynamicModule, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import type { Logger } from 'pino';
import { withLibpqSslModes } from '@seed/platform-config';
import { CommandBus, KafkaConnection, MessageProducer } from '@seed/platform-kafka';
import { LOGGER, PlatformModule, ServiceSchema, StartDeadline } from '@seed/platform-nest';
import { AccessChangeListener, accessChannel } from './accounts/access-changes';
import { AccountsRepository } from './accounts/accounts.repository';
import { ApiKeyGuard } from './accounts/api-key.guard';
import { KeyAccessCache } from './accounts/key-access-cache';
import { AdminTokenGuard } from './admin/admin-token.guard';
import { AdminController } from './admin/admin.controller';
import { AgentCommands } from './agent/agent-commands';
import { GuestPageController } from './agent/guest-page.controller';
import { SessionsController } from './agent/sessions.controller';
import { TokensController } from './agent/tokens.controller';
import { CommandClient } from './commands/command-client';
import { GatewayConfig } from './gateway.config';
import { GATEWAY_REPLY_TOPIC, gatewayService } from './gateway.service';
import { ApiExceptionFilter } from './http/api-exception.filter';
import { SmsBatchController } from './sms/sms-batch.controller';
import { SmsReadController } from './sms/sms-read.controller';
import { VerifyController } from './verify/verify.controller';
import { MessagesV1Controller } from './messages/messages-v1.controller';
import { NumberCommands } from './numbers/number-commands';
import { NumbersController } from './numbers/numbers.controller';
import { OptOutCommands } from './opt-outs/opt-out-commands';
import { OptOutsController } from './opt-outs/opt-outs.controller';
import { RequestRateLimits } from './rate-limit/request-rate-limits';
import { CarriersController } from './routing/carriers.controller';
import { RoutesController } from './routing/routes.controller';
import { RoutingCommands } from './routing/routing-commands';
import { WebhookCommandTopic } from './webhooks/webhook-command-topic';
import { WebhooksController } from './webhooks/webhooks.controller';

/** API key admissions a replica keeps at most (KeyAccessCache). */
const KEY_CACHE_ENTRIES = 10_000;

@Module({})
export class GatewayModule implements OnModuleInit, OnApplicationShutdown {
  constructor(
    private readonly bus: CommandBus,
    private readonly accessChanges: AccessChangeListener,
    private readonly config: GatewayConfig,
    private readonly deadline: StartDeadline,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  static register(config: GatewayConfig, logger: Logger): DynamicModule {
    return {
      module: GatewayModule,
      imports: [PlatformModule.forService(gatewayService, config, logger)],
      controllers: [AdminController, SmsBatchController, MessagesV1Controller, SmsReadController, TokensController, SessionsController, GuestPageController, WebhooksController, VerifyController, CarriersController, RoutesController, OptOutsController, NumbersController],
      providers: [
        { provide: GatewayConfig, useValue: config },
        { provide: APP_FILTER, useClass: ApiExceptionFilter },
        {
          provide: CommandBus,
          useFactory: (connection: KafkaConnection, producer: MessageProducer) =>
            new CommandBus(connection, producer, logger, {
              replyTopic: GATEWAY_REPLY_TOPIC,
              instanceId: randomUUID(),
              timeoutMs: config.COMMAND_TIMEOUT_MS,
            }),
          inject: [KafkaConnection, MessageProducer],
        },
        { provide: KeyAccessCache, useValue: new KeyAccessCache({ ttlMs: config.API_KEY_CACHE_MS, maxEntries: KEY_CACHE_ENTRIES }) },
        {
          provide: AccessChangeListener,
          useFactory: (cache: KeyAccessCache, schema: ServiceSchema) => new AccessChangeListener(withLibpqSslModes(config.DATABASE_URL), accessChannel(schema.name), cache, logger),
          inject: [KeyAccessCache, ServiceSchema],
        },
        AccountsRepository,
        ApiKeyGuard,
        RequestRateLimits,
        AdminTokenGuard,
        CommandClient,
        AgentCommands,
        RoutingCommands,
        OptOutCommands,
        NumberCommands,
        WebhookCommandTopic,
      ],
    };
  }

  // Runs after the platform's own init (topics exist), before any listener opens.
  async onModuleInit(): Promise<void> {
    await this.deadline.retry('kafka: reply consumer', () => this.bus.start());
    this.logger.info('command bus ready');
    // In the background: until it listens, every request reads its key from the database.
    if (this.config.API_KEY_CACHE_MS > 0) this.accessChanges.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([this.bus.stop(), this.accessChanges.stop()]);
  }
}
