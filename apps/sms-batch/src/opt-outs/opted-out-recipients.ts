import type { Logger } from 'pino';
import { Gauge } from 'prom-client';
import { quoteSchema, type SqlExecutor } from '@seed/platform-event-store';
import { FailureStreak } from '@seed/platform-logging';

/** The replica's list whose age is on /metrics (the one its sender asks). */
let measured: OptedOutRecipients | undefined;
const measureAge = (list: OptedOutRecipients): void => {
  measured = list;
};

new Gauge({
  name: 'sms_batch_opt_outs_age_seconds',
  help: 'Seconds since this replica last read the opt-outs (-1 before its first read); past OPT_OUTS_STALE_AFTER_MS it sends nothing (alert OptOutsStale)',
  // At scrape time: the age a stuck refresh reaches, not the one it last set.
  collect() {
    if (measured) this.set(Number.isFinite(measured.ageMs()) ? measured.ageMs() / 1000 : -1);
  },
});

/**
 * The recipients each sub-account must not message, in memory: the senders ask it for every
 * message at hand-off, so it cannot be a query each. Loaded whole at start, then only what
 * changed since (`changed_at_position` of the opt-outs read model), every `refreshMs`: an opt-out
 * applies to messages handed off from a second or two after it was recorded. When no refresh has
 * succeeded for `staleAfterMs`, what it knows may be missing a STOP: every answer is 'unknown', and
 * nothing is sent until a refresh succeeds (fails closed).
 */
export class OptedOutRecipients {
  private readonly optedOut = new Set<string>();
  private seenPosition = '0';
  private timer: NodeJS.Timeout | undefined;
  private refreshing: Promise<void> | undefined;
  private refreshedAt = Number.NEGATIVE_INFINITY;
  private readonly failures: FailureStreak;

  constructor(
    private readonly db: SqlExecutor,
    schema: string,
    logger: Logger,
    private readonly refreshMs = 1000,
    private readonly staleAfterMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {
    this.table = `${quoteSchema(schema)}.opt_outs`;
    this.failures = new FailureStreak(logger, 'opt-outs not refreshed; sending nothing once they are older than OPT_OUTS_STALE_AFTER_MS');
  }

  private readonly table: string;

  /** Whether `msisdn` (E.164 digits) opted out of `subAccountId`'s messages; 'unknown' when the list is stale. */
  has(subAccountId: string, msisdn: string): boolean | 'unknown' {
    if (this.ageMs() > this.staleAfterMs) return 'unknown';
    return this.optedOut.size > 0 && this.optedOut.has(keyOf(subAccountId, msisdn));
  }

  /** Milliseconds since the last successful read (infinite before the first). */
  ageMs(): number {
    return this.now() - this.refreshedAt;
  }

  async start(): Promise<void> {
    measureAge(this);
    await this.refresh();
    this.timer = setInterval(() => void this.refresh().catch(() => undefined), this.refreshMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** Reads what changed since the last refresh (one at a time). */
  refresh(): Promise<void> {
    this.refreshing ??= this.readChanges()
      .then(
        () => this.failures.succeeded(),
        (error: unknown) => {
          this.failures.failed(error, { ageMs: this.ageMs() });
          throw error;
        },
      )
      .finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  private async readChanges(): Promise<void> {
    const startedAt = this.now();
    const rows = (await this.db.query(
      `SELECT sub_account_id, msisdn, opted_out, changed_at_position::text AS position FROM ${this.table}
        WHERE changed_at_position > $1 ORDER BY changed_at_position`,
      [this.seenPosition],
    )) as { sub_account_id: string; msisdn: string; opted_out: boolean; position: string }[];
    for (const row of rows) {
      if (row.opted_out) this.optedOut.add(keyOf(row.sub_account_id, row.msisdn));
      else this.optedOut.delete(keyOf(row.sub_account_id, row.msisdn));
      this.seenPosition = row.position;
    }
    // Fresh as of when the read began: a change committed during it is read next time.
    this.refreshedAt = startedAt;
  }
}

const keyOf = (subAccountId: string, msisdn: string): string => `${subAccountId}\u0000${msisdn}`;
