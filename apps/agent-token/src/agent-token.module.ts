import { randomUUID } from 'node:crypto';
import { Inject, Module, type DynamicModule, type OnApplicationBootstrap, type OnModuleInit, type BeforeApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Logger } from 'pino';
import { AGENT_TOKEN_EVENT_TOPIC } from '@seed/agent-token-contracts';
import { CommandPipeline, EventStore } from '@seed/platform-event-store';
import { CommandBus, KafkaConnection, MessageProducer, OutboxRelay } from '@seed/platform-kafka';
import { LOGGER, PlatformModule, ServiceSchema, StartDeadline, SubscriptionRegistry } from '@seed/platform-nest';
import { parseKeyring } from '@seed/platform-secrets';
import { AgentTokenConfig } from './agent-token.config';
import { AGENT_TOKEN_REPLY_TOPIC, agentTokenService } from './agent-token.service';
import { GuestLinkSmsSender } from './guest-link/guest-link-sms.sender';
import { CallReferences } from './rooms/call-references';
import { GuestLinks } from './rooms/guest-links';
import { RoomExpirySweeper } from './rooms/room-expiry.sweeper';
import { RoomStore } from './rooms/room-store';
import { RoomsProjection } from './rooms/rooms.projection';
import { SessionsHandler } from './rooms/sessions.handler';
import { SealedWire } from './sealed-wire';
import { AgentTokens } from './tokens/agent-tokens';
import { CreateTokenHandler } from './tokens/create-token.handler';
import { GuestTokens } from './tokens/guest-tokens';

/**
 * Agent tokens and guest rooms: issues tokens, creates rooms, logs agents in, sends the guest
 * link by SMS on the first login (through sms-batch), records expiries, publishes its events.
 */
@Module({})
export class AgentTokenModule implements OnModuleInit, OnApplicationBootstrap, BeforeApplicationShutdown {
  constructor(
    private readonly subscriptions: SubscriptionRegistry,
    private readonly producer: MessageProducer,
    private readonly schema: ServiceSchema,
    private readonly bus: CommandBus,
    private readonly rooms: RoomStore,
    private readonly links: GuestLinks,
    private readonly wire: SealedWire,
    private readonly sweeper: RoomExpirySweeper,
    private readonly config: AgentTokenConfig,
    private readonly deadline: StartDeadline,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  static register(config: AgentTokenConfig, logger: Logger): DynamicModule {
    return {
      module: AgentTokenModule,
      imports: [PlatformModule.forService(agentTokenService, config, logger)],
      controllers: [CreateTokenHandler, SessionsHandler],
      providers: [
        { provide: AgentTokenConfig, useValue: config },
        { provide: AgentTokens, useValue: new AgentTokens(parseKeyring(config.AGENT_TOKEN_SIGNING_KEYS)) },
        { provide: SealedWire, useValue: new SealedWire(config.MESSAGE_SEALING_KEYS) },
        { provide: GuestTokens, useValue: new GuestTokens(parseKeyring(config.AGENT_TOKEN_SIGNING_KEYS)) },
        { provide: GuestLinks, useFactory: (tokens: GuestTokens) => new GuestLinks(tokens, config.guestBaseUrl), inject: [GuestTokens] },
        { provide: RoomStore, useFactory: (store: EventStore) => new RoomStore(store), inject: [EventStore] },
        { provide: CallReferences, useFactory: (schema: ServiceSchema) => new CallReferences(schema.name), inject: [ServiceSchema] },
        {
          provide: RoomExpirySweeper,
          useFactory: (dataSource: DataSource, rooms: RoomStore, pipeline: CommandPipeline, schema: ServiceSchema) =>
            new RoomExpirySweeper(dataSource, rooms, pipeline, schema.name, config.ROOM_EXPIRY_SWEEP_MS, logger),
          inject: [DataSource, RoomStore, CommandPipeline, ServiceSchema],
        },
        {
          provide: CommandBus,
          useFactory: (connection: KafkaConnection, producer: MessageProducer) =>
            new CommandBus(connection, producer, logger, { replyTopic: AGENT_TOKEN_REPLY_TOPIC, instanceId: randomUUID(), timeoutMs: 30_000 }),
          inject: [KafkaConnection, MessageProducer],
        },
      ],
    };
  }

  // After the platform's init (schema migrated, topics created), before the log followers start.
  async onModuleInit(): Promise<void> {
    await this.deadline.retry('kafka: reply consumer', () => this.bus.start());
    this.subscriptions.register(new RoomsProjection(this.schema.name));
    this.subscriptions.register(
      new GuestLinkSmsSender(
        this.rooms,
        this.links,
        this.wire,
        this.bus,
        { text: this.config.AGENT_GUEST_SMS_TEXT, source: this.config.AGENT_GUEST_SMS_SOURCE },
        this.logger,
      ),
    );
    this.subscriptions.register(new OutboxRelay(this.producer, AGENT_TOKEN_EVENT_TOPIC));
  }

  onApplicationBootstrap(): void {
    this.sweeper.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.sweeper.stop();
    await this.bus.stop();
  }
}
