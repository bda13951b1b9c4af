/**
 * Failed admin authentications per client address, over a sliding window: past `maxFailures` in
 * `windowMs`, the address is refused (429) until its oldest counted failure leaves the window.
 * Successes are not counted. In memory, per gateway replica: N replicas allow N times the budget,
 * which is still far too few guesses against a 128-bit token; what it stops is a scan, and the
 * log lines it leaves. At most `maxClients` addresses are remembered (the least recently failing go first).
 */
export class FailedAuthLimiter {
  private readonly failures = new Map<string, number[]>();

  constructor(
    readonly maxFailures = 10,
    readonly windowMs = 60_000,
    private readonly now: () => number = () => Date.now(),
    readonly maxClients = 10_000,
  ) {}

  /** Seconds `client` must wait before it may try again; 0 when it may try now. */
  retryAfterSeconds(client: string): number {
    const recent = this.recent(client);
    if (recent.length < this.maxFailures) return 0;
    const freesAt = (recent[recent.length - this.maxFailures] as number) + this.windowMs;
    return Math.max(1, Math.ceil((freesAt - this.now()) / 1000));
  }

  recordFailure(client: string): void {
    const recent = this.recent(client);
    recent.push(this.now());
    // Keep what the window needs, and move the address to the end of the eviction order.
    this.failures.delete(client);
    this.failures.set(client, recent.slice(-this.maxFailures));
    while (this.failures.size > this.maxClients) {
      const oldest = this.failures.keys().next().value as string;
      this.failures.delete(oldest);
    }
  }

  /** Addresses remembered, for tests. */
  get size(): number {
    return this.failures.size;
  }

  private recent(client: string): number[] {
    const since = this.now() - this.windowMs;
    const recent = (this.failures.get(client) ?? []).filter((at) => at > since);
    if (recent.length === 0) this.failures.delete(client);
    return recent;
  }
}
