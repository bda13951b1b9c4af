/**
 * Submit rate limit per system_id: a token bucket holding one second's worth, so a burst up to
 * the rate passes and anything faster gets ESME_RTHROTTLED.
 */
export class Throttle {
  private readonly buckets = new Map<string, { rate: number; tokens: number; updatedAt: number }>();

  tryTake(key: string, ratePerSecond: number, now: number): boolean {
    if (ratePerSecond <= 0) return true;
    let bucket = this.buckets.get(key);
    if (!bucket || bucket.rate !== ratePerSecond) {
      bucket = { rate: ratePerSecond, tokens: ratePerSecond, updatedAt: now };
      this.buckets.set(key, bucket);
    }
    bucket.tokens = Math.min(ratePerSecond, bucket.tokens + ((now - bucket.updatedAt) * ratePerSecond) / 1000);
    bucket.updatedAt = now;
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    return true;
  }
}
