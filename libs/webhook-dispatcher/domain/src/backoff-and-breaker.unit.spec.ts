import { retryDelayMs } from './backoff';
import { afterOutcomes, blockedUntil, breakerMode, closedBreaker, outcomeRun, sendingCap, type BreakerState } from './circuit-breaker';
import { fairShare, linePerSlot, slotsToGrant, slotsToKeep, slotsWanted, usableSlots, waitingLine } from './endpoint-slots';

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
  const fail = (n: number) => outcomeRun(Array<'failure'>(n).fill('failure'));
  const failTimes = (n: number, now = 0): BreakerState => afterOutcomes(closedBreaker(), fail(n), now, policy);

  it('stays closed below the threshold, and a success resets the count', () => {
    expect(failTimes(2)).toEqual({ failures: 2, openUntil: null });
    expect(sendingCap(failTimes(2), 0, 32)).toBe(32);
    expect(afterOutcomes(failTimes(2), outcomeRun(['success', 'failure']), 0, policy)).toEqual({ failures: 1, openUntil: null });
  });

  it('counts failures recorded by several batches (replicas) as one run', () => {
    const once = afterOutcomes(closedBreaker(), fail(2), 0, policy);
    expect(afterOutcomes(once, fail(1), 50, policy)).toEqual({ failures: 3, openUntil: 1050 });
  });

  it('opens after N consecutive failures and sends nothing until the cool-down ends', () => {
    const open = failTimes(3, 100);
    expect(open).toEqual({ failures: 3, openUntil: 1100 });
    expect(breakerMode(open, 1099)).toBe('open');
    expect(sendingCap(open, 1099, 32)).toBe(0);
    expect(blockedUntil(open, 500)).toBe(1100);
    expect(blockedUntil(open, 1100)).toBeNull();
  });

  it('is half-open after the cool-down: one probe; success closes, failure re-opens', () => {
    const halfOpen = failTimes(3, 0);
    expect(breakerMode(halfOpen, 1000)).toBe('half-open');
    expect(sendingCap(halfOpen, 1000, 32)).toBe(1);
    expect(afterOutcomes(halfOpen, outcomeRun(['success']), 1200, policy)).toEqual(closedBreaker());
    expect(afterOutcomes(halfOpen, outcomeRun(['failure']), 2000, policy)).toEqual({ failures: 3, openUntil: 3000 });
  });

  it('an open breaker ignores failures of requests that left before it opened', () => {
    const open = failTimes(3, 0);
    expect(afterOutcomes(open, fail(2), 500, policy)).toEqual(open);
  });

  it('refused targets say nothing about the endpoint; a success in the run counts from there', () => {
    expect(outcomeRun(['refused', 'refused'])).toEqual({ reset: false, failures: 0 });
    expect(outcomeRun(['failure', 'success', 'refused', 'failure'])).toEqual({ reset: true, failures: 1 });
    expect(afterOutcomes(failTimes(2), outcomeRun(['refused']), 0, policy)).toEqual(failTimes(2));
  });
});

describe('endpoint slots', () => {
  const ask = (r: Partial<Parameters<typeof slotsToGrant>[0]>) => slotsToGrant({ want: 32, keep: 0, cap: 32, heldByOthers: 0, othersWanting: 0, ...r });

  it('grants a lone replica the whole cap, and what the others leave otherwise', () => {
    expect(ask({})).toBe(32);
    expect(ask({ heldByOthers: 20 })).toBe(12);
    expect(ask({ want: 0 })).toBe(0);
  });

  it('shares the cap between the replicas that want it', () => {
    expect(fairShare(32, 2)).toBe(16);
    expect(fairShare(5, 2)).toBe(3);
    expect(ask({ othersWanting: 1 })).toBe(16);
    // The first replica still holds all of it: the second waits for it to give some back.
    expect(ask({ othersWanting: 1, heldByOthers: 32 })).toBe(0);
    // The first keeps what it uses while its requests end, then comes down to its share.
    expect(ask({ othersWanting: 1, keep: 32 })).toBe(32);
    expect(ask({ othersWanting: 1, keep: 16 })).toBe(16);
    expect(usableSlots(32, 32, 2)).toBe(16);
    expect(slotsToKeep(20, 40, 16)).toBe(20);
    expect(slotsToKeep(3, 40, 16)).toBe(16);
    expect(slotsToKeep(0, 0, 16)).toBe(0);
  });

  it('one probe across replicas while half-open, none while open, never below nothing', () => {
    expect(ask({ cap: 1 })).toBe(1);
    expect(ask({ cap: 1, othersWanting: 1 })).toBe(1);
    expect(ask({ cap: 1, heldByOthers: 1, othersWanting: 1 })).toBe(0);
    expect(ask({ cap: 0, keep: 5 })).toBe(0);
    expect(ask({ cap: 0, heldByOthers: 5 })).toBe(0);
  });

  it('asks for the cap while busy with the endpoint, nothing once done with it', () => {
    expect(slotsWanted(3, false, 32)).toBe(32);
    expect(slotsWanted(0, true, 32)).toBe(32);
    expect(slotsWanted(0, false, 32)).toBe(0);
    expect(waitingLine(32)).toBe(64);
  });

  it('lines up what a fast endpoint answers in 100 ms per slot, two per slot for a slow or unknown one, eight at most', () => {
    expect(linePerSlot(null)).toBe(2);
    expect(linePerSlot(500)).toBe(2);
    expect(linePerSlot(40)).toBe(2);
    expect(linePerSlot(25)).toBe(4);
    expect(linePerSlot(12)).toBe(8);
    expect(linePerSlot(0.2)).toBe(8);
    expect(waitingLine(32, linePerSlot(20))).toBe(160);
  });
});
