/** How long failed deliveries are retried. */
export interface RetryPolicy {
  /** Cap of the first retry's delay; doubles per attempt. */
  baseDelayMs: number;
  /** Largest cap of one delay. */
  maxDelayMs: number;
  /** After this long since the delivery was scheduled (or re-driven), it is dead-lettered. */
  maxAgeMs: number;
}

/**
 * Exponential backoff with full jitter: a delay drawn uniformly from [0, min(max, base * 2^(n-1))),
 * so that many deliveries failing together (an endpoint that was down) do not come back together.
 * `random` is in [0, 1), passed in so that the decision is deterministic in tests.
 */
export function retryDelayMs(policy: RetryPolicy, attempt: number, random: number): number {
  const cap = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.min(Math.max(attempt - 1, 0), 40));
  return Math.floor(Math.min(Math.max(random, 0), 1) * cap);
}
