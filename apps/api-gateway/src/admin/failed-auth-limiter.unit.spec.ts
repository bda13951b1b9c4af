import { FailedAuthLimiter } from './failed-auth-limiter';

describe('FailedAuthLimiter', () => {
  let now = 0;
  const limiter = (max = 10, clients = 10_000) => new FailedAuthLimiter(max, 60_000, () => now, clients);
  beforeEach(() => (now = 1_000_000));

  it('lets an address fail 10 times a minute, then refuses it until its oldest failure is a minute old', () => {
    const failures = limiter();
    for (let i = 0; i < 10; i++) {
      expect(failures.retryAfterSeconds('10.0.0.1')).toBe(0);
      failures.recordFailure('10.0.0.1');
      now += 1_000;
    }
    // The first failure was at 1,000,000; now is 1,010,000: free at 1,060,000.
    expect(failures.retryAfterSeconds('10.0.0.1')).toBe(50);
    expect(failures.retryAfterSeconds('10.0.0.2')).toBe(0);
    now = 1_059_999;
    expect(failures.retryAfterSeconds('10.0.0.1')).toBe(1);
    now = 1_060_000;
    expect(failures.retryAfterSeconds('10.0.0.1')).toBe(0);
    failures.recordFailure('10.0.0.1'); // ten again in the window: the second failure frees it next
    expect(failures.retryAfterSeconds('10.0.0.1')).toBe(1);
  });

  it('forgets an address whose failures have all left the window, and bounds how many it remembers', () => {
    const failures = limiter(10, 3);
    for (const client of ['a', 'b', 'c', 'd']) failures.recordFailure(client);
    expect(failures.size).toBe(3);
    now += 60_001;
    expect(failures.retryAfterSeconds('b')).toBe(0);
    expect(failures.size).toBe(2);
  });
});
