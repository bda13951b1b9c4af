import type { Logger } from 'pino';
import { carrierThrottledSeconds } from './carrier.metrics';
import { NO_RESPONSE_STATUS } from './submit-outcome';

/**
 * Statuses that mean "not now" from the carrier itself (not our window): the carrier is avoided for
 * a while. A submit left unanswered too: a hung carrier takes its binds again at once, and each new
 * session's window would be one more window of submits that it may deliver and another carrier sends too.
 */
const AVOID_STATUSES = new Set([0x08, 0x14, 0x58, 0x64, NO_RESPONSE_STATUS]);

/**
 * Carriers this replica passes over for a while because they throttled or answered temporary
 * errors; the fleet reports the rest of each spell with its bind leases, so the other replicas
 * route around them too.
 */
export class CarrierAvoidance {
  private readonly until = new Map<string, number>();

  constructor(
    private readonly avoidMs: number,
    private readonly logger: Logger,
  ) {}

  /** A carrier refused a submit or left it unanswered: throttling, temporary errors and silence make it avoided for a while. */
  note(carrierId: string, status: number): void {
    if (!AVOID_STATUSES.has(status)) return;
    const until = Date.now() + this.avoidMs;
    if ((this.until.get(carrierId) ?? 0) < until - 500) this.logger.warn({ carrier: carrierId, status }, 'carrier throttling or failing; routing around it for a while');
    this.until.set(carrierId, until);
  }

  /** How much longer this replica avoids the carrier; 0 when it does not. */
  remainingMs(carrierId: string): number {
    return Math.max(0, (this.until.get(carrierId) ?? 0) - Date.now());
  }

  /** Adds a tick's time to the throttled-seconds metric of each carrier still avoided, and forgets the others. */
  countTick(tickMs: number): void {
    const now = Date.now();
    for (const [carrierId, until] of this.until) {
      if (until > now) carrierThrottledSeconds.inc({ carrier: carrierId }, tickMs / 1000);
      else this.until.delete(carrierId);
    }
  }
}
