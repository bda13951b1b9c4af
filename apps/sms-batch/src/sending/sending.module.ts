import { hostname } from 'node:os';
import { Inject, Module, type BeforeApplicationShutdown, type DynamicModule, type OnApplicationBootstrap } from '@nestjs/common';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { CommandPipeline, EventStore } from '@seed/platform-event-store';
import { LOGGER, ServiceSchema } from '@seed/platform-nest';
import { PeriodicSweep } from '@seed/platform-work-queue';
import { isDeliveryReceipt, parseDeliveryReceipt } from '@seed/sms-batch-domain';
import { BindSlotsRepository } from '../carrier/bind-slots.repository';
import { CarrierPinsRepository } from '../carrier/carrier-pins.repository';
import { SenderReplicasRepository } from '../carrier/sender-replicas.repository';
import { CarrierFleet } from '../carrier/carrier-fleet';
import { StoredRoutingConfig } from '../carrier/stored-routing-config';
import { InboundExpiry } from '../inbound/inbound-expiry';
import { InboundRecorder } from '../inbound/inbound-recorder';
import { StoredNumbers } from '../numbers/stored-numbers';
import { OptedOutRecipients } from '../opt-outs/opted-out-recipients';
import { CarrierPasswords } from '../routing-config';
import { SealedTexts } from '../sealed-texts';
import type { SmsBatchConfig } from '../sms-batch.config';
import { MessageLifecycleWriter } from './message-lifecycle.writer';
import { MessageSender } from './message-sender';
import { OutboundQueueMetrics } from './outbound-queue.metrics';
import { OutboundQueueRepository } from './outbound-queue.repository';

const PARKED_SWEEP_MS = 5000;

/** Carrier delivery: the carriers' sessions, routing, the sender and receipts. */
@Module({})
export class SendingModule implements OnApplicationBootstrap, BeforeApplicationShutdown {
  constructor(
    private readonly fleet: CarrierFleet,
    private readonly sender: MessageSender,
    @Inject(LOGGER) private readonly logger: Logger,
    private readonly writer: MessageLifecycleWriter,
    private readonly optedOut: OptedOutRecipients,
    private readonly numbers: StoredNumbers,
    private readonly inboundExpiry: InboundExpiry,
  ) {}

  static register(config: SmsBatchConfig): DynamicModule {
    const sealed = new SealedTexts(config.MESSAGE_SEALING_KEYS);
    return {
      module: SendingModule,
      providers: [
        MessageLifecycleWriter,
        OutboundQueueRepository,
        OutboundQueueMetrics,
        BindSlotsRepository,
        SenderReplicasRepository,
        CarrierPinsRepository,
        {
          provide: StoredNumbers,
          inject: [DataSource, EventStore, LOGGER],
          useFactory: (dataSource: DataSource, store: EventStore, logger: Logger) => new StoredNumbers(dataSource.manager, store, logger),
        },
        {
          provide: InboundRecorder,
          inject: [DataSource, EventStore, StoredNumbers, CommandPipeline, LOGGER],
          useFactory: (dataSource: DataSource, store: EventStore, numbers: StoredNumbers, pipeline: CommandPipeline, logger: Logger) =>
            new InboundRecorder(dataSource, store, numbers, pipeline, logger, { duplicateWindowMs: config.INBOUND_DUPLICATE_WINDOW_MS, maxWaitMs: config.INBOUND_PART_MAX_WAIT_MS, helpRepliesPerHour: config.INBOUND_HELP_REPLIES_PER_HOUR }),
        },
        {
          provide: InboundExpiry,
          inject: [InboundRecorder, LOGGER],
          useFactory: (recorder: InboundRecorder, logger: Logger) => new InboundExpiry(recorder, logger),
        },
        {
          provide: OptedOutRecipients,
          inject: [DataSource, ServiceSchema, LOGGER],
          useFactory: (dataSource: DataSource, schema: ServiceSchema, logger: Logger) => new OptedOutRecipients(dataSource.manager, schema.name, logger, 1000, config.OPT_OUTS_STALE_AFTER_MS),
        },
        {
          provide: CarrierFleet,
          inject: [DataSource, EventStore, BindSlotsRepository, SenderReplicasRepository, CarrierPinsRepository, MessageLifecycleWriter, InboundRecorder, LOGGER],
          useFactory: (
            dataSource: DataSource,
            store: EventStore,
            slots: BindSlotsRepository,
            replicas: SenderReplicasRepository,
            pins: CarrierPinsRepository,
            writer: MessageLifecycleWriter,
            inbound: InboundRecorder,
            logger: Logger,
          ) => {
            const fleet = new CarrierFleet(
              new StoredRoutingConfig(
                dataSource,
                store,
                new CarrierPasswords(config.MESSAGE_SEALING_KEYS),
                config.SMPP_URL === '' ? null : { url: config.SMPP_URL, binds: config.SMPP_BINDS, window: config.SMPP_WINDOW },
                logger,
              ),
              { slots, replicas, pins },
              {
                replicaId: config.REPLICA_ID || `${hostname()}-${process.pid}`,
                tickMs: config.CARRIER_TICK_MS,
                leaseMs: config.CARRIER_LEASE_MS,
                avoidMs: config.CARRIER_AVOID_MS,
                enquireLinkMs: config.SMPP_ENQUIRE_LINK_MS,
                responseTimeoutMs: config.SMPP_RESPONSE_TIMEOUT_MS,
                reconnectMaxMs: config.SMPP_RECONNECT_MAX_MS,
              },
              logger,
              async (carrierId, pdu) => {
                // A message from a handset (message type 0): recorded as inbound SMS before it is answered.
                if (!isDeliveryReceipt(pdu.esmClass)) return inbound.record(carrierId, pdu.fields);
                const receipt = parseDeliveryReceipt(pdu, new Date().toISOString());
                // Acknowledgements and notifications that are no receipt are answered and dropped.
                if (receipt) await writer.record({ receipt: { ...receipt, carrierId } });
              },
            );
            // Inbound SMS are held to the carriers that may deliver to their number (the numbers' and the routes').
            inbound.bindRouting(() => fleet.table());
            return fleet;
          },
        },
        {
          provide: MessageSender,
          inject: [OutboundQueueRepository, CarrierFleet, MessageLifecycleWriter, OptedOutRecipients, LOGGER],
          useFactory: (queue: OutboundQueueRepository, fleet: CarrierFleet, writer: MessageLifecycleWriter, optedOut: OptedOutRecipients, logger: Logger) =>
            new MessageSender(queue, fleet, writer, logger, {
              claimSize: config.SEND_CLAIM_SIZE,
              leaseMs: config.SEND_LEASE_MS,
              idleMs: config.SEND_IDLE_MS,
              stopGraceMs: config.SEND_STOP_GRACE_MS,
              defaultSource: config.SMS_DEFAULT_SOURCE,
              retryBaseMs: config.SEND_RETRY_BASE_MS,
              retryMaxMs: config.SEND_RETRY_MAX_MS,
              textOf: (stored) => sealed.sendable(stored),
              optedOut: (subAccountId, msisdn) => optedOut.has(subAccountId, msisdn),
            }),
        },
      ],
      exports: [MessageLifecycleWriter, MessageSender],
    };
  }

  private parkedSweep: PeriodicSweep | undefined;

  async onApplicationBootstrap(): Promise<void> {
    this.parkedSweep = new PeriodicSweep({ queue: 'sms-parked-receipts', sweep: 'parked-receipts', everyMs: PARKED_SWEEP_MS, logger: this.logger, pass: () => this.writer.sweepParkedReceipts() });
    this.parkedSweep.start();
    // Before the sender starts: no message is handed off without the opt-outs known.
    await this.optedOut.start();
    // Before a carrier session opens: an inbound SMS needs its number's owner.
    await this.numbers.start();
    this.inboundExpiry.start();
    await this.fleet.start();
    if (!this.fleet.isConfigured()) this.logger.warn('no carrier is configured (SMPP_URL, or the admin API): messages are accepted and stay queued until one is');
    this.sender.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    // Each step's time in the last line: a slow stop shows which part held it.
    const took: Record<string, number> = {};
    const step = async (name: string, stop: () => unknown) => {
      const startedAt = Date.now();
      await stop();
      took[name] = Date.now() - startedAt;
    };
    await step('parkedSweepMs', () => this.parkedSweep?.stop());
    await step('senderMs', () => this.sender.stop());
    await step('carrierSessionsMs', () => this.fleet.stop());
    this.optedOut.stop();
    this.numbers.stop();
    await step('inboundExpiryMs', () => this.inboundExpiry.stop());
    this.logger.info(took, 'sender stopped and carrier sessions closed');
  }
}
