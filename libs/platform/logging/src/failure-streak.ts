import type { Logger } from 'pino';

/** How long a loop may keep failing before its failures are errors: longer than a dependency's restart. */
export const FAILING_FOR_ERROR_MS = 60_000;

/**
 * The log level of a loop that retries what failed (a follower's batch, a claim, a consumer's
 * restart). A dependency restarting (a broker or database restart, a leader moving) makes such a
 * loop fail for seconds and then succeed by itself: those failures are warnings. Once it has kept
 * failing for `errorAfterMs` with no success between, each failure is an error, for an operator to
 * act on; the next success logs that it recovered. Errors are for operators.
 */
export class FailureStreak {
  private since: number | null = null;
  private escalated = false;

  constructor(
    private readonly logger: Logger,
    private readonly message: string,
    private readonly errorAfterMs = FAILING_FOR_ERROR_MS,
    private readonly now: () => number = Date.now,
  ) {}

  failed(error: unknown, fields: Record<string, unknown> = {}): void {
    const at = this.now();
    this.since ??= at;
    const failingForMs = at - this.since;
    if (failingForMs < this.errorAfterMs) {
      this.logger.warn({ ...fields, err: error, failingForMs }, this.message);
      return;
    }
    this.escalated = true;
    this.logger.error({ ...fields, err: error, failingForMs }, this.message);
  }

  succeeded(fields: Record<string, unknown> = {}): void {
    if (this.since === null) return;
    if (this.escalated) this.logger.info({ ...fields, failedForMs: this.now() - this.since }, `recovered: ${this.message}`);
    this.since = null;
    this.escalated = false;
  }
}
