import type { Logger } from 'pino';
import type { InboundRecorder } from './inbound-recorder';

/**
 * Every `everyMs`, the parts that waited past their limit for siblings are delivered as they are
 * (incomplete). Any replica may do it: the expiry is an append at the version read, so two
 * replicas sweeping the same stream write it once.
 */
export class InboundExpiry {
  private timer: NodeJS.Timeout | undefined;
  private sweeping = false;

  constructor(
    private readonly recorder: InboundRecorder,
    private readonly logger: Logger,
    private readonly everyMs = 15_000,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.sweep(), this.everyMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  async sweep(): Promise<number> {
    if (this.sweeping) return 0;
    this.sweeping = true;
    let expired = 0;
    try {
      for (const streamId of await this.recorder.overdue()) {
        await this.recorder.expire(streamId);
        expired++;
      }
    } catch (error) {
      this.logger.warn({ err: error }, 'inbound parts not swept; trying again later');
    } finally {
      this.sweeping = false;
    }
    return expired;
  }
}
