import type { SubmitSmPart } from '@seed/sms-batch-domain';
import { attachSessionMetrics } from './carrier.metrics';
import type { SmppCarrier, SubmitOutcome } from './smpp-carrier';

/** What the sender needs of the carrier: one session or several. */
export interface Carrier {
  start(): void;
  isBound(): boolean;
  waitUntilBound(timeoutMs: number): Promise<boolean>;
  submit(part: SubmitSmPart, mayStillSend?: () => boolean): Promise<SubmitOutcome>;
  stop(): Promise<void>;
}

/**
 * `SMPP_BINDS` sessions of one replica to the carrier, used as one: a submit goes to the bound
 * session with the fewest submits waiting or on the wire, so one slow or re-binding session does
 * not hold the others back. Receipts arrive on whichever session the carrier chooses; each session
 * hands them to the same writer, which matches them by carrier id whoever submitted.
 */
export class SmppCarrierPool implements Carrier {
  private detachMetrics: (() => void) | undefined;

  constructor(private readonly sessions: readonly SmppCarrier[]) {
    if (sessions.length === 0) throw new Error('a carrier pool needs at least one session');
  }

  start(): void {
    this.detachMetrics = attachSessionMetrics(this.sessions);
    for (const session of this.sessions) session.start();
  }

  isBound(): boolean {
    return this.sessions.some((session) => session.isBound());
  }

  async waitUntilBound(timeoutMs: number): Promise<boolean> {
    if (this.isBound()) return true;
    return Promise.any(this.sessions.map((session) => session.waitUntilBound(timeoutMs).then((bound) => (bound ? true : Promise.reject(new Error('not bound')))))).catch(
      () => false,
    );
  }

  submit(part: SubmitSmPart, mayStillSend?: () => boolean): Promise<SubmitOutcome> {
    return this.leastBusy().submit(part, mayStillSend);
  }

  async stop(): Promise<void> {
    await Promise.all(this.sessions.map((session) => session.stop()));
    this.detachMetrics?.();
  }

  private leastBusy(): SmppCarrier {
    let best: SmppCarrier | undefined;
    for (const session of this.sessions) {
      if (!session.isBound()) continue;
      if (!best || session.load() < best.load()) best = session;
    }
    // None bound: the first session answers "not bound", a temporary refusal the sender retries.
    return best ?? (this.sessions[0] as SmppCarrier);
  }
}
