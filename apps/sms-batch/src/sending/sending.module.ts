import { Inject, Module, type BeforeApplicationShutdown, type DynamicModule, type OnApplicationBootstrap } from '@nestjs/common';
import type { Logger } from 'pino';
import { LOGGER } from '@seed/platform-nest';
import { parseDeliveryReceipt } from '@seed/sms-batch-domain';
import { SmppCarrier } from '../carrier/smpp-carrier';
import { SmppCarrierPool, type Carrier } from '../carrier/smpp-carrier-pool';
import { SealedTexts } from '../sealed-texts';
import type { SmsBatchConfig } from '../sms-batch.config';
import { MessageLifecycleWriter } from './message-lifecycle.writer';
import { MessageSender } from './message-sender';
import { OutboundQueueMetrics } from './outbound-queue.metrics';
import { OutboundQueueRepository } from './outbound-queue.repository';

const PARKED_SWEEP_MS = 5000;

/** Carrier delivery: the SMPP session, the sender and receipts. Absent when SMPP_URL is empty. */
@Module({})
export class SendingModule implements OnApplicationBootstrap, BeforeApplicationShutdown {
  constructor(
    @Inject(SmppCarrierPool) private readonly carrier: Carrier | null,
    @Inject(MessageSender) private readonly sender: MessageSender | null,
    @Inject(LOGGER) private readonly logger: Logger,
    private readonly writer: MessageLifecycleWriter,
  ) {}

  static register(config: SmsBatchConfig): DynamicModule {
    const enabled = config.SMPP_URL !== '';
    const sealed = new SealedTexts(config.MESSAGE_SEALING_KEYS);
    return {
      module: SendingModule,
      providers: [
        MessageLifecycleWriter,
        OutboundQueueRepository,
        OutboundQueueMetrics,
        {
          provide: SmppCarrierPool,
          inject: [MessageLifecycleWriter, LOGGER],
          useFactory: (writer: MessageLifecycleWriter, logger: Logger) =>
            enabled
              ? new SmppCarrierPool(
                  Array.from(
                    { length: config.SMPP_BINDS },
                    (_, i) =>
                      new SmppCarrier(
                        {
                          url: config.SMPP_URL,
                          window: config.SMPP_WINDOW,
                          enquireLinkMs: config.SMPP_ENQUIRE_LINK_MS,
                          responseTimeoutMs: config.SMPP_RESPONSE_TIMEOUT_MS,
                          reconnectMaxMs: config.SMPP_RECONNECT_MAX_MS,
                        },
                        config.SMPP_BINDS > 1 ? logger.child({ bind: i + 1 }) : logger,
                        async (pdu) => {
                          const receipt = parseDeliveryReceipt(pdu, new Date().toISOString());
                          // Mobile-originated messages are not handled by this platform; they are acknowledged.
                          if (receipt) await writer.record({ receipt });
                        },
                      ),
                  ),
                )
              : null,
        },
        {
          provide: MessageSender,
          inject: [OutboundQueueRepository, SmppCarrierPool, MessageLifecycleWriter, LOGGER],
          useFactory: (queue: OutboundQueueRepository, carrier: Carrier | null, writer: MessageLifecycleWriter, logger: Logger) =>
            carrier
              ? new MessageSender(queue, carrier, writer, logger, {
                  claimSize: config.SEND_CLAIM_SIZE,
                  leaseMs: config.SEND_LEASE_MS,
                  idleMs: config.SEND_IDLE_MS,
                  defaultSource: config.SMS_DEFAULT_SOURCE,
                  retryBaseMs: config.SEND_RETRY_BASE_MS,
                  retryMaxMs: config.SEND_RETRY_MAX_MS,
                  textOf: (stored) => sealed.sendable(stored),
                })
              : null,
        },
      ],
      exports: [MessageLifecycleWriter, MessageSender],
    };
  }

  private sweeper: NodeJS.Timeout | undefined;

  onApplicationBootstrap(): void {
    this.sweeper = setInterval(() => {
      this.writer.sweepParkedReceipts().catch((error: unknown) => this.logger.error({ err: error }, 'parked receipts sweep failed'));
    }, PARKED_SWEEP_MS);
    this.sweeper.unref();
    if (!this.carrier || !this.sender) {
      this.logger.warn('SMPP_URL is not set: messages are accepted and stay queued until a carrier is configured');
      return;
    }
    this.carrier.start();
    this.sender.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.sweeper);
    await this.sender?.stop();
    await this.carrier?.stop();
    if (this.carrier) this.logger.info('sender stopped and carrier session closed');
  }
}
