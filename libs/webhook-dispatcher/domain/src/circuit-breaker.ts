import type { AttemptOutcome } from './delivery.decider';

/**
 * Circuit breaker of one endpoint (origin), shared by every dispatcher replica: after
 * `failureThreshold` consecutive failures it opens and nothing is sent there for `cooldownMs`;
 * after that it is half-open, and one request at a time may go (a probe): a success closes it, a
 * failure opens it again. Pure: the caller keeps the state (a row per endpoint) and passes the time.
 *
 * The state is two values, so that it fits a row and a single UPDATE: `openUntil` null is closed;
 * in the future is open; in the past is half-open. Whether a probe is out is not part of it: the
 * endpoint's sending slots are (see endpoint-slots.ts), capped at one while half-open.
 */
export interface BreakerPolicy {
  failureThreshold: number;
  cooldownMs: number;
}

export interface BreakerState {
  /** Consecutive failures recorded while closed (kept as they were while open). */
  failures: number;
  /** Epoch ms; null when closed. */
  openUntil: number | null;
}

export type BreakerMode = 'closed' | 'open' | 'half-open';

export const closedBreaker = (): BreakerState => ({ failures: 0, openUntil: null });

export function breakerMode(state: BreakerState, now: number): BreakerMode {
  if (state.openUntil === null) return 'closed';
  return now < state.openUntil ? 'open' : 'half-open';
}

/** Requests that may be in flight to the endpoint at once, over all replicas: all, none, or one probe. */
export function sendingCap(state: BreakerState, now: number, concurrency: number): number {
  switch (breakerMode(state, now)) {
    case 'closed':
      return concurrency;
    case 'open':
      return 0;
    case 'half-open':
      return 1;
  }
}

/** When the endpoint may be tried again (for putting its deliveries back), or null when it may now. */
export function blockedUntil(state: BreakerState, now: number): number | null {
  return breakerMode(state, now) === 'open' ? state.openUntil : null;
}

/**
 * What a batch of attempts on one endpoint, in the order they ended, says to its breaker: whether a
 * success came (which closes it, whatever came before), and how many failures followed the last
 * success (or all of them, without one). Refused targets never reached the endpoint: they say nothing.
 */
export interface OutcomeRun {
  reset: boolean;
  failures: number;
}

export function outcomeRun(outcomes: readonly AttemptOutcome['kind'][]): OutcomeRun {
  let reset = false;
  let failures = 0;
  for (const kind of outcomes) {
    if (kind === 'success') {
      reset = true;
      failures = 0;
    } else if (kind === 'failure') failures++;
  }
  return { reset, failures };
}

/**
 * The breaker after a run of outcomes, recorded at `now`. The dispatcher applies it in SQL
 * (`breaker_after` in webhook.migrations.ts, tested against this function) so that replicas
 * recording outcomes for one endpoint at once each start from the other's result.
 *
 * - A success closes it (also one that left before the breaker opened: the endpoint answers).
 * - Closed (or just closed by the run): failures add up; at the threshold it opens for the cool-down.
 * - Half-open: a failure (the probe's) opens it again for a new cool-down.
 * - Open: a failure of a request that left before it opened changes nothing.
 */
export function afterOutcomes(state: BreakerState, run: OutcomeRun, now: number, policy: BreakerPolicy): BreakerState {
  if (run.reset || state.openUntil === null) {
    const failures = (run.reset ? 0 : state.failures) + run.failures;
    return { failures, openUntil: failures >= policy.failureThreshold ? now + policy.cooldownMs : null };
  }
  if (state.openUntil <= now && run.failures > 0) return { failures: state.failures, openUntil: now + policy.cooldownMs };
  return state;
}
