/**
 * Circuit breaker of one endpoint (origin): after `failureThreshold` consecutive failures it opens
 * and nothing is sent there for `cooldownMs`; then one probe goes out (half-open): success closes
 * it, failure opens it again. Pure: the caller keeps the state and passes the time.
 */
export interface BreakerPolicy {
  failureThreshold: number;
  cooldownMs: number;
}

export type BreakerState =
  | { mode: 'closed'; failures: number }
  | { mode: 'open'; until: number }
  | { mode: 'half-open'; probing: boolean };

export const closedBreaker = (): BreakerState => ({ mode: 'closed', failures: 0 });

/** Whether a request may go out now, and the state after taking that slot (a probe, when half-open). */
export function tryPass(state: BreakerState, now: number): { allowed: boolean; state: BreakerState } {
  switch (state.mode) {
    case 'closed':
      return { allowed: true, state };
    case 'open':
      if (now < state.until) return { allowed: false, state };
      return { allowed: true, state: { mode: 'half-open', probing: true } };
    case 'half-open':
      if (state.probing) return { allowed: false, state };
      return { allowed: true, state: { mode: 'half-open', probing: true } };
  }
}

export function onSuccess(_state: BreakerState): BreakerState {
  return closedBreaker();
}

export function onFailure(state: BreakerState, now: number, policy: BreakerPolicy): BreakerState {
  switch (state.mode) {
    case 'closed': {
      const failures = state.failures + 1;
      return failures >= policy.failureThreshold ? { mode: 'open', until: now + policy.cooldownMs } : { mode: 'closed', failures };
    }
    case 'half-open':
      return { mode: 'open', until: now + policy.cooldownMs };
    case 'open':
      // A request that left before the breaker opened: the breaker stays open as it is.
      return state;
  }
}

/**
 * An attempt that never reached the endpoint (its address was refused) says nothing about it. If it
 * was the half-open probe, the probe slot is given back: otherwise nothing would ever pass again.
 */
export function onNotTried(state: BreakerState): BreakerState {
  return state.mode === 'half-open' ? { mode: 'half-open', probing: false } : state;
}

/** When the endpoint may be tried again (for putting its deliveries back), or null when it may now. */
export function blockedUntil(state: BreakerState, now: number): number | null {
  if (state.mode === 'open' && now < state.until) return state.until;
  return null;
}
