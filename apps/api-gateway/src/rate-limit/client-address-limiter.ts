/** Whether a request may go on, and when a refused one may try again. */
export interface AddressAdmission {
  admitted: boolean;
  /** Whole seconds until the address has a request again (1 at least). */
  retryAfterSeconds: number;
}

export interface ClientAddressLimiterOptions {
  /** Requests an address may make per minute, sustained. */
  perMinute: number;
  /** Requests an address may make at once after a quiet spell (the bucket's size). */
  burst: number;
  /** Addresses tracked at most; past it the least recently seen go first (a full bucket is no loss). */
  maxAddresses?: number;
}

interface Bucket {
  tokens: number;
  at: number;
}

/**
 * A token bucket per client address, in memory: `burst` requests at once, refilled at `perMinute`.
 * For the unauthenticated entry points (agent login, the guest page), whose callers are known only
 * by their address. Each gateway replica keeps its own buckets: n replicas admit up to n times the
 * rate in total, which is fine for a limit whose point is to bound the work one address can cause
 * (and keeps a flood of such requests from costing a database round trip each).
 */
export class ClientAddressLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private readonly perMs: number;
  private readonly maxAddresses: number;

  constructor(private readonly options: ClientAddressLimiterOptions) {
    if (!(options.perMinute > 0) || !(options.burst >= 1)) throw new Error('perMinute must be > 0 and burst >= 1');
    this.perMs = options.perMinute / 60_000;
    this.maxAddresses = options.maxAddresses ?? 100_000;
  }

  admit(address: string, nowMs: number): AddressAdmission {
    const bucket = this.refilled(address, nowMs);
    // Re-inserted last: the Map's order is the eviction order (least recently seen first).
    this.buckets.delete(address);
    this.buckets.set(address, bucket);
    this.evict();
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return { admitted: true, retryAfterSeconds: 1 };
    }
    return { admitted: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / this.perMs / 1000)) };
  }

  /** Forgets addresses whose bucket is full again (they would be admitted as if new). */
  prune(nowMs: number): void {
    for (const [address, bucket] of this.buckets) {
      if (this.tokensAt(bucket, nowMs) >= this.options.burst) this.buckets.delete(address);
    }
  }

  /** Addresses tracked now. */
  get size(): number {
    return this.buckets.size;
  }

  private refilled(address: string, nowMs: number): Bucket {
    const bucket = this.buckets.get(address);
    if (!bucket) return { tokens: this.options.burst, at: nowMs };
    return { tokens: this.tokensAt(bucket, nowMs), at: Math.max(bucket.at, nowMs) };
  }

  private tokensAt(bucket: Bucket, nowMs: number): number {
    return Math.min(this.options.burst, bucket.tokens + Math.max(0, nowMs - bucket.at) * this.perMs);
  }

  private evict(): void {
    while (this.buckets.size > this.maxAddresses) {
      const oldest = this.buckets.keys().next();
      if (oldest.done) break;
      this.buckets.delete(oldest.value);
    }
  }
}
