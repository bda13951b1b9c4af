import type { SubmitSmPart } from '@seed/sms-batch-domain';
import type { SmppCarrier } from './smpp-carrier';
import { NOT_BOUND, NOT_SENT, type SubmitOutcome } from './submit-outcome';
import { SubmitRateLimiter } from './submit-rate-limiter';

/**
 * This replica's sessions to one carrier, used as one: a submit goes to the bound session with the
 * fewest submits waiting or on the wire, so one slow or re-binding session does not hold the
 * others back, after the carrier's throughput cap lets it out. Sessions come and go as this replica
 * gains and gives up bind slots. Receipts arrive on whichever session the carrier chooses; each
 * session hands them to the same writer, which matches them by carrier id whoever submitted.
 */
export class SmppCarrierPool {
  readonly limiter = new SubmitRateLimiter();
  private readonly sessions: SmppCarrier[] = [];

  constructor(readonly carrierId: string) {}

  /** The sessions as they are now (the metrics read them at each scrape). */
  sessionList(): readonly SmppCarrier[] {
    return this.sessions;
  }

  /** Starts a session under a slot this replica leases. */
  add(session: SmppCarrier): void {
    this.sessions.push(session);
    session.start();
  }

  /** Closes a session (its submits on the wire may finish first, within `graceMs`). */
  async remove(session: SmppCarrier, graceMs?: number): Promise<void> {
    const index = this.sessions.indexOf(session);
    if (index >= 0) this.sessions.splice(index, 1);
    await session.stop(graceMs);
  }

  size(): number {
    return this.sessions.length;
  }

  boundSessions(): number {
    return this.sessions.filter((session) => session.isBound()).length;
  }

  isBound(): boolean {
    return this.sessions.some((session) => session.isBound());
  }

  async submit(part: SubmitSmPart, mayStillSend: () => boolean = () => true): Promise<SubmitOutcome> {
    if (!this.isBound()) return NOT_BOUND;
    if (!(await this.limiter.take(mayStillSend))) return NOT_SENT;
    const session = this.leastBusy();
    if (!session) return NOT_BOUND;
    return session.submit(part, mayStillSend);
  }

  async stop(): Promise<void> {
    await Promise.all(this.sessions.splice(0).map((session) => session.stop()));
  }

  private leastBusy(): SmppCarrier | undefined {
    let best: SmppCarrier | undefined;
    for (const session of this.sessions) {
      if (!session.isBound()) continue;
      if (!best || session.load() < best.load()) best = session;
    }
    return best;
  }
}
