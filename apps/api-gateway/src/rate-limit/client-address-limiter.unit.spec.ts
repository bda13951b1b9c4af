import { ClientAddressLimiter } from './client-address-limiter';

const T = 1_700_000_000_000;

describe('ClientAddressLimiter', () => {
  it('admits a burst at once, then refuses with Retry-After until the rate refills a request', () => {
    const limiter = new ClientAddressLimiter({ perMinute: 20, burst: 5 });
    const answers = Array.from({ length: 7 }, () => limiter.admit('192.0.2.1', T));
    expect(answers.filter((a) => a.admitted)).toHaveLength(5);
    // 20 a minute: one every 3 s.
    expect(answers[6]).toEqual({ admitted: false, retryAfterSeconds: 3 });
    expect(limiter.admit('192.0.2.1', T + 2_900).admitted).toBe(false);
    expect(limiter.admit('192.0.2.1', T + 3_000).admitted).toBe(true);
    expect(limiter.admit('192.0.2.1', T + 3_001)).toEqual({ admitted: false, retryAfterSeconds: 3 });
  });

  it('holds the sustained rate: over ten minutes about perMinute a minute plus the burst', () => {
    const limiter = new ClientAddressLimiter({ perMinute: 20, burst: 5 });
    let admitted = 0;
    for (let ms = 0; ms < 600_000; ms += 100) if (limiter.admit('192.0.2.1', T + ms).admitted) admitted++;
    expect(admitted).toBeGreaterThanOrEqual(200);
    expect(admitted).toBeLessThanOrEqual(205);
  });

  it('counts each address alone', () => {
    const limiter = new ClientAddressLimiter({ perMinute: 20, burst: 2 });
    expect([1, 2, 3].map(() => limiter.admit('192.0.2.1', T).admitted)).toEqual([true, true, false]);
    expect([1, 2, 3].map(() => limiter.admit('2001:db8::1', T).admitted)).toEqual([true, true, false]);
  });

  it('never refills past the burst, and a clock that goes back gives nothing', () => {
    const limiter = new ClientAddressLimiter({ perMinute: 60, burst: 3 });
    limiter.admit('a', T);
    const later = Array.from({ length: 5 }, () => limiter.admit('a', T + 3_600_000).admitted);
    expect(later).toEqual([true, true, true, false, false]);
    expect(limiter.admit('a', T).admitted).toBe(false);
  });

  it('forgets full buckets when pruned and keeps at most maxAddresses, least recently seen out first', () => {
    const limiter = new ClientAddressLimiter({ perMinute: 60, burst: 2, maxAddresses: 3 });
    for (const address of ['a', 'b', 'c', 'd']) limiter.admit(address, T);
    expect(limiter.size).toBe(3);
    // 'a' was evicted: it starts with a full bucket again.
    expect([1, 2, 3].map(() => limiter.admit('a', T).admitted)).toEqual([true, true, false]);
    // A second later c and d (one left, one refilled) are full again; 'a' (none left) is not.
    limiter.prune(T + 1_000);
    expect(limiter.size).toBe(1);
    limiter.prune(T + 2_000);
    expect(limiter.size).toBe(0);
  });

  it('refuses nonsensical settings', () => {
    expect(() => new ClientAddressLimiter({ perMinute: 0, burst: 1 })).toThrow();
    expect(() => new ClientAddressLimiter({ perMinute: 1, burst: 0 })).toThrow();
  });
});
