/** Whether a request may go on, and when a refused one may try again. */
export interface Admission {
  admitted: boolean;
  /** Whole seconds until a refused request may be tried again. */
  retryAfterSeconds: number;
}

/**
 * Takes up to `wanted` requests of `limit` for the key's `second` from the count every replica
 * shares, and answers how many it got (0 once the second's limit is all given out).
 */
export type LeaseRequests = (key: string, second: number, wanted: number, limit: number) => Promise<number>;

/** One sub-account's second on this replica. */
interface Window {
  second: number;
  /** Requests leased for this replica in the second. */
  granted: number;
  /** Requests admitted so far: never more than `granted`. */
  used: number;
  /** The second's limit is all given out: refuse without asking again. */
  exhausted: boolean;
  /** A lease in flight, which the requests arriving meanwhile wait for. */
  pending: Promise<void> | undefined;
}

/** Leases are taken a twentieth of the limit at a time: few round trips, little left unused. */
const LEASES_PER_LIMIT = 20;

/**
 * Fixed one-second windows per sub-account. The gateway replicas share one count per sub-account
 * and second (`RequestCountsStore`) from which each leases requests in small slices; a replica
 * admits a request from its lease without any I/O, and leases again when it runs out. Together the
 * replicas never admit more than the limit in a second; what one holds unused at the end of a
 * second (at most a slice) is the price, so a sub-account spread over many replicas may get a
 * little less than its limit under a flood.
 */
export class RequestRateLimiter {
  private readonly windows = new Map<string, Window>();

  constructor(private readonly lease: LeaseRequests) {}

  async admit(key: string, limit: number, nowMs: number): Promise<Admission> {
    const window = this.windowOf(key, Math.floor(nowMs / 1000));
    for (;;) {
      if (window.used < window.granted) {
        window.used += 1;
        return { admitted: true, retryAfterSeconds: 1 };
      }
      // The window ends within the second: `Retry-After` is given in whole seconds.
      if (window.exhausted) return { admitted: false, retryAfterSeconds: 1 };
      window.pending ??= this.leaseFor(window, key, limit).finally(() => {
        window.pending = undefined;
      });
      await window.pending;
    }
  }

  /** Forgets windows of past seconds, so the map holds only sub-accounts active now. */
  prune(nowMs: number): void {
    const second = Math.floor(nowMs / 1000);
    for (const [key, window] of this.windows) if (window.second < second) this.windows.delete(key);
  }

  private async leaseFor(window: Window, key: string, limit: number): Promise<void> {
    const got = await this.lease(key, window.second, Math.ceil(limit / LEASES_PER_LIMIT), limit);
    window.granted += got;
    if (got === 0) window.exhausted = true;
  }

  private windowOf(key: string, second: number): Window {
    const current = this.windows.get(key);
    if (current?.second === second) return current;
    const window: Window = { second, granted: 0, used: 0, exhausted: false, pending: undefined };
    this.windows.set(key, window);
    return window;
  }
}
