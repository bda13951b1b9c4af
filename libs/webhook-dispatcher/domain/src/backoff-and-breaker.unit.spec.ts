import { retryDelayMs } from './backoff';
import { blockedUntil, closedBreaker, onFailure, onNotTried, onSuccess, tryPass, type BreakerState } from './circuit-breaker';

describe('retry delay (exponential, full jitter)', () => {
  const policy = { baseDelayMs: 1000, maxDelayMs: 30_000, maxAgeMs: 86_400_000 };
  it('draws from [0, base * 2^(n-1)), capped at the max delay', () => {
    expect(retryDelayMs(policy, 1, 0)).toBe(0);
    expect(retryDelayMs(policy, 1, 0.999)).toBe(999);
    expect(retryDelayMs(policy, 4, 0.5)).toBe(4000);
    expect(retryDelayMs(policy, 10, 0.5)).toBe(15_000);
    expect(retryDelayMs(policy, 500, 0.999)).toBe(29_970);
  });
});

describe('circuit breaker', () => {
  const policy = { failureThreshold: 3, cooldownMs: 1000 };
  const failTimes = (n: number, now = 0): BreakerState => {
    let s = closedBreaker();
    for (let i = 0; i < n; i++) s = onFailure(s, now, policy);
    return s;
  };

  it('stays closed below the threshold, and a success resets the count', () => {
    expect(failTimes(2)).toEqual({ mode: 'closed', failures: 2 });
    expect(tryPass(failTimes(2), 0).allowed).toBe(true);
    expect(onFailure(onSuccess(failTimes(2)), 0, policy)).toEqual({ mode: 'closed', failures: 1 });
  });

  it('opens after N consecutive failures and refuses until the cool-down ends', () => {
    const open = failTimes(3, 100);
    expect(open).toEqual({ mode: 'open', until: 1100 });
    expect(tryPass(open, 1099).allowed).toBe(false);
    expect(blockedUntil(open, 500)).toBe(1100);
    expect(blockedUntil(open, 1100)).toBeNull();
  });

  it('lets one probe through after the cool-down: success closes, failure re-opens', () => {
    const probe = tryPass(failTimes(3, 0), 1000);
    expect(probe).toEqual({ allowed: true, state: { mode: 'half-open', probing: true } });
    expect(tryPass(probe.state, 1001).allowed).toBe(false);
    expect(onSuccess(probe.state)).toEqual(closedBreaker());
    expect(onFailure(probe.state, 2000, policy)).toEqual({ mode: 'open', until: 3000 });
  });

  it('gives the probe slot back when the probe never reached the endpoint (address refused)', () => {
    const probe = tryPass(failTimes(3, 0), 1000);
    const freed = onNotTried(probe.state);
    expect(tryPass(freed, 1001)).toEqual({ allowed: true, state: { mode: 'half-open', probing: true } });
    expect(onNotTried(failTimes(2))).toEqual(failTimes(2));
    expect(onNotTried(failTimes(3, 0))).toEqual(failTimes(3, 0));
  });
});
