import { Counter, Histogram } from 'prom-client';
import { SampledGauge, type Reading } from '@seed/platform-nest';
import type { SubmitOutcome } from './smpp-carrier';

/**
 * How long a carrier waits for our answer to a deliver_sm. A receipt is answered only once it is
 * committed, and a carrier keeps a window of unanswered receipts per session: this time, divided
 * into that window, is how many receipts a second the session can take.
 */
export const receiptAckSeconds = new Histogram({
  name: 'sms_batch_receipt_ack_seconds',
  help: 'Time from a deliver_sm arriving to its deliver_sm_resp being sent',
  labelNames: ['outcome'] as const,
  buckets: [0.005, 0.01, 0.02, 0.035, 0.05, 0.075, 0.1, 0.2, 0.5, 1, 5],
});

const submits = new Counter({
  name: 'sms_batch_smpp_submits_total',
  help: 'submit_sm sent to the carrier, by how they ended: accepted, throttled, queue_full, temporary (other retried refusals), rejected (final), no_response (timeout or connection lost)',
  labelNames: ['outcome'] as const,
});

const submitSeconds = new Histogram({
  name: 'sms_batch_smpp_submit_duration_seconds',
  help: 'Time from a submit_sm being written to its submit_sm_resp (or to the connection being given up)',
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
});

const bindUp = new SampledGauge({
  name: 'sms_batch_smpp_bind_up',
  help: 'Whether each SMPP session of this replica is bound to the carrier (1) or not (0), by session number (1..SMPP_BINDS)',
  labelNames: ['bind'] as const,
});
const windowInUse = new SampledGauge({
  name: 'sms_batch_smpp_window_in_use',
  help: 'submit_sm of a session on the wire, awaiting their submit_sm_resp, by session number',
  labelNames: ['bind'] as const,
});
const windowSize = new SampledGauge({
  name: 'sms_batch_smpp_window_size',
  help: 'Most submit_sm a session keeps on the wire at once (SMPP_WINDOW), by session number',
  labelNames: ['bind'] as const,
});

const THROTTLED = 0x58;
const QUEUE_FULL = 0x14;
const NO_RESPONSE = -1;

export function submitOutcomeLabel(outcome: SubmitOutcome): string {
  if (outcome.ok) return 'accepted';
  if (outcome.status === THROTTLED) return 'throttled';
  if (outcome.status === QUEUE_FULL) return 'queue_full';
  if (outcome.status === NO_RESPONSE) return 'no_response';
  return outcome.temporary ? 'temporary' : 'rejected';
}

/** Started when a submit_sm is written; called with how it ended. */
export function submitObserver(): (outcome: SubmitOutcome) => void {
  const stop = submitSeconds.startTimer();
  return (outcome) => {
    stop();
    submits.inc({ outcome: submitOutcomeLabel(outcome) });
  };
}

/** What the gauges need of a session. */
export interface SessionWindow {
  isBound(): boolean;
  window(): { inUse: number; size: number };
}

/** The sessions of the pool, numbered as in the logs (`bind`: 1..n); the function returned detaches them. */
export function attachSessionMetrics(sessions: readonly SessionWindow[]): () => void {
  const each = (value: (session: SessionWindow) => number) => () =>
    Promise.resolve(sessions.map((session, i): Reading<'bind'> => ({ labels: { bind: i + 1 }, value: value(session) })));
  const detach = [
    bindUp.attach(each((session) => (session.isBound() ? 1 : 0))),
    windowInUse.attach(each((session) => session.window().inUse)),
    windowSize.attach(each((session) => session.window().size)),
  ];
  return () => detach.forEach((d) => d());
}
