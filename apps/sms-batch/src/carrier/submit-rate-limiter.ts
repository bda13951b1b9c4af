interface Waiter {
  resolve: (granted: boolean) => void;
  stillWanted: () => boolean;
}

/** How often a waiting submit is asked whether it is still wanted. */
const GIVE_UP_CHECK_MS = 100;

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
  private readonly waiters: Waiter[] = [];
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

  /**
   * Resolves true when a submit may go out, or false once `stillWanted` says the caller gave up
   * (asked at least every GIVE_UP_CHECK_MS while it waits): a share of 0 may last, and a stopping
   * sender must not wait for it.
   */
  take(stillWanted: () => boolean = () => true): Promise<boolean> {
    if (this.perSecond === Infinity && this.waiters.length === 0) return Promise.resolve(true);
    this.refill();
    if (this.waiters.length === 0 && this.tokens >= 1) {
      this.tokens -= 1;
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      this.waiters.push({ resolve, stillWanted });
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
    if (this.waiters.length === 0) return;
    this.dropAbandoned();
    if (this.perSecond === Infinity) {
      clearTimeout(this.timer);
      this.timer = undefined;
      for (const waiter of this.waiters.splice(0)) waiter.resolve(true);
      return;
    }
    if (this.timer) return;
    this.refill();
    while (this.tokens >= 1 && this.waiters.length > 0) {
      this.tokens -= 1;
      this.waiters.shift()?.resolve(true);
    }
    if (this.waiters.length === 0) return;
    // A share of 0 (this replica holds no session the database counts) gives no token until setRate.
    const untilToken = this.perSecond > 0 ? Math.ceil(((1 - this.tokens) / this.perSecond) * 1000) : Infinity;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.schedule();
      },
      Math.max(1, Math.min(untilToken, GIVE_UP_CHECK_MS)),
    );
  }

  /** Waiters whose caller gave up are answered false and leave the line. */
  private dropAbandoned(): void {
    for (let i = this.waiters.length - 1; i >= 0; i--) {
      const waiter = this.waiters[i] as Waiter;
      if (waiter.stillWanted()) continue;
      this.waiters.splice(i, 1);
      waiter.resolve(false);
    }
  }
}
