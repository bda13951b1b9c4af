import { Counter } from 'prom-client';

const swept = new Counter({
  name: 'work_queue_swept_rows_total',
  help: 'Rows a periodic sweep ended, handed on or released (e.g. expired, dead-lettered, released from behind ended ones), by queue and sweep',
  labelNames: ['queue', 'sweep'] as const,
});
const failed = new Counter({
  name: 'work_queue_sweep_failures_total',
  help: 'Sweep passes that failed (tried again at the next period), by queue and sweep',
  labelNames: ['queue', 'sweep'] as const,
});

/** Where a sweep reports a failed pass (a service's pino logger fits). */
export interface SweepLogger {
  warn(details: object, message: string): void;
}

export interface SweepOptions {
  /** The queue it tidies and its own name, as the metrics label them. */
  queue: string;
  sweep: string;
  everyMs: number;
  /** One pass: looks at a bounded slice and says how many rows it changed. */
  pass: () => Promise<number>;
  logger: SweepLogger;
}

/**
 * The upkeep of a work queue that no claim does: rows past their expiry, parts waiting past their
 * limit, rows left behind. A pass runs every `everyMs`, either on a timer of its own (`start`) or
 * from a loop that owns the connection's rhythm (`runIfDue`, e.g. between claims); passes never
 * overlap, a failed one is counted and logged and the next period tries again, and `stop` waits
 * for a pass under way. Each pass must be bounded (O(slice), not O(queue)): a sweep runs beside
 * the sending and must not take the database from it.
 */
export class PeriodicSweep {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number> | undefined;
  private lastAt = Date.now();

  constructor(private readonly options: SweepOptions) {}

  start(): void {
    this.timer = setInterval(() => void this.runNow(), this.options.everyMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** A pass when one period has gone by since the last; 0 otherwise. */
  async runIfDue(now = Date.now()): Promise<number> {
    return now - this.lastAt >= this.options.everyMs ? this.runNow(now) : 0;
  }

  /**
   * A pass now, or the one under way. Never throws: a failure is counted, logged and answered as 0.
   * `now` is when the period counts from: the caller's clock, so runIfDue's next answer follows it.
   */
  runNow(now = Date.now()): Promise<number> {
    this.running ??= this.pass(now).finally(() => (this.running = undefined));
    return this.running;
  }

  private async pass(startedAt: number): Promise<number> {
    const { queue, sweep } = this.options;
    this.lastAt = startedAt;
    try {
      const rows = await this.options.pass();
      if (rows > 0) swept.inc({ queue, sweep }, rows);
      return rows;
    } catch (error) {
      failed.inc({ queue, sweep });
      this.options.logger.warn({ err: error, queue, sweep }, 'sweep failed; trying again at the next period');
      return 0;
    }
  }
}
