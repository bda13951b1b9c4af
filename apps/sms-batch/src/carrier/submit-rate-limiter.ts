/**
 * A token bucket in front of one replica's sessions to a carrier. The carrier's `maxPerSecond`
 * is for the carrier as a whole, so each replica gets the share of it that its sessions are of
 * every live session (set again every tick). The bucket holds at most a tenth of a second's worth,
 * so a burst after an idle spell stays within the cap over any second.
 */
export class SubmitRateLimiter {
  private perSecond = Infinity;
  private tokens = 0;
  private refilledAt = Date.now();
  private readonly waiters: (() => void)[] = [];
  private timer: NodeJS.Timeout | undefined;

  /** Infinity: no cap. */
  setRate(perSecond: number): void {
    if (perSecond === this.perSecond) return;
    this.refill();
    this.perSecond = perSecond;
    this.tokens = Math.min(this.tokens, this.capacity());
    this.schedule();
  }

  rate(): number {
    return this.perSecond;
  }

  /** Resolves when a submit may go out. */
  take(): Promise<void> {
    if (this.perSecond === Infinity && this.waiters.length === 0) return Promise.resolve();
    this.refill();
    if (this.waiters.length === 0 && this.tokens >= 1) {
      this.tokens -= 1;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      this.waiters.push(resolve);
      this.schedule();
    });
  }

  /** Time submits spent waiting for the cap: what the throttled-time metric adds up. */
  waiting(): number {
    return this.waiters.length;
  }

  private capacity(): number {
    return Math.max(1, this.perSecond / 10);
  }

  private refill(): void {
    const now = Date.now();
    if (this.perSecond !== Infinity) this.tokens = Math.min(this.capacity(), this.tokens + ((now - this.refilledAt) / 1000) * this.perSecond);
    this.refilledAt = now;
  }

  private schedule(): void {
    if (this.timer || this.waiters.length === 0) return;
    this.refill();
    if (this.perSecond === Infinity) {
      for (const wake of this.waiters.splice(0)) wake();
      return;
    }
    while (this.tokens >= 1 && this.waiters.length > 0) {
      this.tokens -= 1;
      this.waiters.shift()?.();
    }
    if (this.waiters.length === 0) return;
    const wait = Math.max(1, Math.ceil(((1 - this.tokens) / this.perSecond) * 1000));
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.schedule();
    }, wait);
  }
}
