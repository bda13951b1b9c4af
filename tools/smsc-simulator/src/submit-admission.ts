import { CommandStatus } from './smpp.constants';
import type { SmscContext } from './smsc-context';

/**
 * The checks a submit_sm passes before it is accepted, in the order the README gives: bound to
 * send, drop probability, window, throttle, destination, temporary error. The deliberate failures
 * come before the destination check except the temporary error, which comes last so that a
 * rejected prefix is refused the same way every time.
 */

export interface SubmittingSession {
  bindType: 'transmitter' | 'receiver' | 'transceiver' | null;
  systemId: string;
  /** submit_sm held by submitDelayMs, not answered yet. */
  inProgress: number;
}

/** 'drop': hang up without an answer. */
export type Admission = { accept: true } | { accept: false; status: number } | { accept: false; drop: true };

const ACCEPT: Admission = { accept: true };
const refuse = (status: number): Admission => ({ accept: false, status });

/** Decides, and counts what it refuses. */
export function admitSubmit(ctx: Pick<SmscContext, 'config' | 'counters' | 'throttle' | 'faults' | 'random'>, session: SubmittingSession, destination: string): Admission {
  const { counters, config: { current: config } } = ctx;
  if (session.bindType !== 'transmitter' && session.bindType !== 'transceiver') {
    counters.rejected++;
    return refuse(CommandStatus.ESME_RINVBNDSTS);
  }
  if (config.dropProbability > 0 && ctx.random() < config.dropProbability) {
    counters.dropped++;
    return { accept: false, drop: true };
  }
  if (session.inProgress >= config.window) {
    counters.windowFull++;
    return refuse(CommandStatus.ESME_RMSGQFUL);
  }
  if (config.throttleAll || !ctx.throttle.tryTake(session.systemId, config.throttlePerSecond, Date.now())) {
    counters.throttled++;
    return refuse(CommandStatus.ESME_RTHROTTLED);
  }
  if (!acceptsDestination(destination, config.rejectPrefixes)) {
    counters.rejected++;
    return refuse(CommandStatus.ESME_RINVDSTADR);
  }
  const temporaryError = ctx.faults.temporaryError();
  if (temporaryError !== null) {
    counters.temporaryErrors++;
    return refuse(temporaryError);
  }
  return ACCEPT;
}

/** A prefix matches with or without a leading + on the destination. */
function acceptsDestination(destination: string, rejectPrefixes: readonly string[]): boolean {
  const digits = destination.startsWith('+') ? destination.slice(1) : destination;
  if (digits === '') return false;
  return !rejectPrefixes.some((prefix) => digits.startsWith(prefix));
}
