import { RequestRateLimiter, type LeaseRequests } from './request-rate-limiter';

const T = 1_700_000_000_000; // the start of a second

/** The shared count as PostgreSQL keeps it, in memory, recording every lease asked for. */
function sharedCount() {
  const granted = new Map<string, number>();
  const calls: { key: string; wanted: number }[] = [];
  const lease: LeaseRequests = async (key, second, wanted, limit) => {
    calls.push({ key, wanted });
    const id = `${key}@${second}`;
    const before = granted.get(id) ?? 0;
    const got = Math.min(wanted, Math.max(limit - before, 0));
    granted.set(id, before + got);
    return got;
  };
  return { lease, calls };
}

/** Tries `n` requests of `key` at once at `at`, and says how many were admitted. */
async function burst(limiter: RequestRateLimiter, key: string, n: number, limit: number, at: number): Promise<number> {
  const admissions = await Promise.all(Array.from({ length: n }, () => limiter.admit(key, limit, at)));
  return admissions.filter((a) => a.admitted).length;
}

describe('RequestRateLimiter', () => {
  it('admits up to the limit in a second, refuses the rest with Retry-After 1, and admits again the next second', async () => {
    const limiter = new RequestRateLimiter(sharedCount().lease);
    expect(await burst(limiter, 'a', 120, 100, T + 100)).toBe(100);
    expect(await limiter.admit('a', 100, T + 999)).toEqual({ admitted: false, retryAfterSeconds: 1 });
    expect(await burst(limiter, 'a', 120, 100, T + 1_000)).toBe(100);
  });

  it('counts each sub-account on its own', async () => {
    const limiter = new RequestRateLimiter(sharedCount().lease);
    expect(await burst(limiter, 'a', 5, 5, T)).toBe(5);
    expect(await burst(limiter, 'b', 5, 5, T)).toBe(5);
    expect((await limiter.admit('a', 5, T)).admitted).toBe(false);
  });

  it('several replicas flooded at once admit exactly the limit together', async () => {
    const shared = sharedCount();
    const replicas = [1, 2, 3].map(() => new RequestRateLimiter(shared.lease));
    const admitted = await Promise.all(replicas.map((r) => burst(r, 'k', 1_000, 1_800, T)));
    expect(admitted.reduce((a, b) => a + b, 0)).toBe(1_800);
  });

  it('leases a twentieth of the limit at a time, one lease for the requests waiting on it, none once the second is given out', async () => {
    const shared = sharedCount();
    const limiter = new RequestRateLimiter(shared.lease);
    expect(await burst(limiter, 'a', 10, 200, T)).toBe(10);
    expect(shared.calls).toEqual([{ key: 'a', wanted: 10 }]);
    expect(await burst(limiter, 'a', 300, 200, T)).toBe(190);
    const leases = shared.calls.length;
    expect(leases).toBe(20 + 1); // the twentieth slice, then the answer that nothing is left
    expect(await burst(limiter, 'a', 10, 200, T + 500)).toBe(0);
    expect(shared.calls.length).toBe(leases);
  });

  it('a failed lease fails the requests waiting on it, and the next request leases again', async () => {
    let fail = true;
    const shared = sharedCount();
    const limiter = new RequestRateLimiter(async (...args) => {
      if (fail) throw new Error('connection refused');
      return shared.lease(...args);
    });
    await expect(limiter.admit('a', 10, T)).rejects.toThrow('connection refused');
    fail = false;
    expect(await limiter.admit('a', 10, T)).toEqual({ admitted: true, retryAfterSeconds: 1 });
  });

  it('forgets past seconds when pruned, keeping the current one', async () => {
    const shared = sharedCount();
    const limiter = new RequestRateLimiter(shared.lease);
    await limiter.admit('a', 100, T);
    await limiter.admit('b', 100, T + 1_000);
    limiter.prune(T + 1_000);
    await limiter.admit('b', 100, T + 1_000); // still from b's lease
    expect(shared.calls.map((c) => c.key)).toEqual(['a', 'b']);
  });
});
