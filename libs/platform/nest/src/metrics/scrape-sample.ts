import { withTimeout } from '@seed/platform-kafka';

export interface ScrapeSampleOptions {
  /** A sample younger than this is served again instead of taken anew (default 5 s). */
  maxAgeMs?: number;
  /** A scrape waits at most this long for a new sample (default 2 s); it then gets none. */
  timeoutMs?: number;
  onError?: (error: unknown) => void;
  now?: () => number;
}

/**
 * A reading of the running service taken for a scrape (a queue's depth from SQL, a consumer group's
 * lag from the broker), at most once per `maxAgeMs` however many Prometheus servers scrape, and
 * never two at once: the database and the broker see a bounded load from metrics, and a scrape
 * never waits longer than `timeoutMs`. A failed or late reading is none (the gauges it feeds are
 * left empty rather than showing an old value); a reading still running when the next scrape comes
 * is not started again.
 */
export class ScrapeSample<T> {
  private last: { at: number; value: T | undefined } | undefined;
  private taking: Promise<T | undefined> | undefined;
  private readonly maxAgeMs: number;
  private readonly timeoutMs: number;
  private readonly now: () => number;

  constructor(
    private readonly take: () => Promise<T>,
    private readonly options: ScrapeSampleOptions = {},
  ) {
    this.maxAgeMs = options.maxAgeMs ?? 5000;
    this.timeoutMs = options.timeoutMs ?? 2000;
    this.now = options.now ?? Date.now;
  }

  current(): Promise<T | undefined> {
    if (this.last && this.now() - this.last.at < this.maxAgeMs) return Promise.resolve(this.last.value);
    // What is taken must end by itself (a statement timeout, a request timeout): until it does, no
    // other reading starts.
    this.taking ??= this.take().then(
      (value) => this.remember(value),
      (error: unknown) => {
        this.options.onError?.(error);
        return this.remember(undefined);
      },
    );
    return withTimeout(this.taking, this.timeoutMs).catch(() => undefined);
  }

  private remember(value: T | undefined): T | undefined {
    this.last = { at: this.now(), value };
    this.taking = undefined;
    return value;
  }
}
