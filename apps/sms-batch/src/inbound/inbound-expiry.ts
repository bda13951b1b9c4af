import { PeriodicSweep, type SweepLogger } from '@seed/platform-work-queue';
import type { InboundRecorder } from './inbound-recorder';

/**
 * Every `everyMs`, the parts that waited past their limit for siblings are delivered as they are
 * (incomplete). Any replica may do it: the expiry is an append at the version read, so two
 * replicas sweeping the same stream write it once.
 */
export class InboundExpiry extends PeriodicSweep {
  constructor(recorder: InboundRecorder, logger: SweepLogger, everyMs = 15_000) {
    super({
      queue: 'sms-inbound-parts',
      sweep: 'expiry',
      everyMs,
      logger,
      pass: async () => {
        let expired = 0;
        for (const streamId of await recorder.overdue()) {
          await recorder.expire(streamId);
          expired++;
        }
        return expired;
      },
    });
  }
}
