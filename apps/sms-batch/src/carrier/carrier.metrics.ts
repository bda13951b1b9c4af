import { Counter, Histogram } from 'prom-client';
import { SampledGauge, type Reading } from '@seed/platform-nest';
import type { SubmitOutcome } from './submit-outcome';

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
  help: 'submit_sm sent to a carrier, by carrier and how they ended: accepted, throttled, queue_full, temporary (other retried refusals), rejected (final), no_response (timeout or connection lost)',
  labelNames: ['carrier', 'outcome'] as const,
});

const submitErrors = new Counter({
  name: 'sms_batch_smpp_submit_errors_total',
  help: 'submit_sm refused by a carrier, by carrier and command_status (0x00000058, ...)',
  labelNames: ['carrier', 'status'] as const,
});

/** Seconds a carrier was avoided for throttling or temporary errors, summed by the replicas that saw them. */
export const carrierThrottledSeconds = new Counter({
  name: 'sms_batch_carrier_throttled_seconds_total',
  help: 'Time a carrier was passed over because it answered with throttling or temporary errors, by carrier',
  labelNames: ['carrier'] as const,
});

/** Routing decisions of the sender: a carrier chosen, no route, or nothing to send to yet (wait). */
export const routeDecisions = new Counter({
  name: 'sms_batch_route_decisions_total',
  help: 'Routing decisions by route (catch-all: empty), carrier chosen (empty when none) and outcome: carrier, no_route, wait',
  labelNames: ['route', 'carrier', 'outcome'] as const,
});

const submitSeconds = new Histogram({
  name: 'sms_batch_smpp_submit_duration_seconds',
  help: 'Time from a submit_sm being written to its submit_sm_resp (or to the connection being given up)',
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
});

const bindUp = new SampledGauge({
  name: 'sms_batch_smpp_bind_up',
  help: 'Whether each SMPP session of this replica is bound to its carrier (1) or not (0), by carrier and session number on this replica',
  labelNames: ['carrier', 'bind'] as const,
});
const windowInUse = new SampledGauge({
  name: 'sms_batch_smpp_window_in_use',
  help: 'submit_sm of a session on the wire, awaiting their submit_sm_resp, by carrier and session number',
  labelNames: ['carrier', 'bind'] as const,
});
const windowSize = new SampledGauge({
  name: 'sms_batch_smpp_window_size',
  help: 'Most submit_sm a session keeps on the wire at once (the carrier window), by carrier and session number',
  labelNames: ['carrier', 'bind'] as const,
});
const boundSessions = new SampledGauge({
  name: 'sms_batch_carrier_bound_sessions',
  help: 'Sessions of this replica bound to each configured carrier (0: none here)',
  labelNames: ['carrier'] as const,
});
const rateShare = new SampledGauge({
  name: 'sms_batch_carrier_rate_share',
  help: "This replica's share of the carrier's maxPerSecond, in submits per second (absent: no cap)",
  labelNames: ['carrier'] as const,
});
const waitingForCap = new SampledGauge({
  name: 'sms_batch_carrier_submits_waiting_for_cap',
  help: "Submits held back by the carrier's throughput cap on this replica",
  labelNames: ['carrier'] as const,
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
export function submitObserver(carrier: string): (outcome: SubmitOutcome) => void {
  const stop = submitSeconds.startTimer();
  return (outcome) => {
    stop();
    submits.inc({ carrier, outcome: submitOutcomeLabel(outcome) });
    if (!outcome.ok && outcome.status >= 0) submitErrors.inc({ carrier, status: `0x${outcome.status.toString(16).toUpperCase().padStart(8, '0')}` });
  };
}

/** What the gauges need of a session. */
export interface SessionWindow {
  isBound(): boolean;
  window(): { inUse: number; size: number };
}

/** What the gauges need of a carrier's submit cap. */
export interface CapReading {
  rate(): number;
  waiting(): number;
}

/** One carrier's sessions on this replica, as the gauges read them at each scrape. */
export interface PoolReading {
  readonly carrierId: string;
  readonly limiter: CapReading;
  sessionList(): readonly SessionWindow[];
}

/** Every carrier pool of this replica (read at every scrape); the function returned detaches them. */
export function attachCarrierMetrics(pools: () => Iterable<PoolReading>): () => void {
  const each = (value: (session: SessionWindow) => number) => () =>
    Promise.resolve(
      [...pools()].flatMap((pool) =>
        pool.sessionList().map((session, i): Reading<'carrier' | 'bind'> => ({ labels: { carrier: pool.carrierId, bind: i + 1 }, value: value(session) })),
      ),
    );
  const one = (value: (pool: PoolReading) => number | null) => () =>
    Promise.resolve(
      [...pools()].flatMap((pool): Reading<'carrier'>[] => {
        const v = value(pool);
        return v === null ? [] : [{ labels: { carrier: pool.carrierId }, value: v }];
      }),
    );
  const detach = [
    bindUp.attach(each((session) => (session.isBound() ? 1 : 0))),
    windowInUse.attach(each((session) => session.window().inUse)),
    windowSize.attach(each((session) => session.window().size)),
    boundSessions.attach(one((pool) => pool.sessionList().filter((session) => session.isBound()).length)),
    rateShare.attach(one((pool) => (pool.limiter.rate() === Infinity ? null : pool.limiter.rate()))),
    waitingForCap.attach(one((pool) => pool.limiter.waiting())),
  ];
  return () => detach.forEach((d) => d());
}
