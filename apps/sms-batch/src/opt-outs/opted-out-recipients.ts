import type { Logger } from 'pino';
import { quoteSchema, type SqlExecutor } from '@seed/platform-event-store';

/**
 * The recipients each sub-account must not message, in memory: the senders ask it for every
 * message at hand-off, so it cannot be a query each. Loaded whole at start, then only what
 * changed since (`changed_at_position` of the opt-outs read model), every `refreshMs`: an opt-out
 * applies to messages handed off from a second or two after it was recorded.
 */
export class OptedOutRecipients {
  private readonly optedOut = new Set<string>();
  private seenPosition = '0';
  private timer: NodeJS.Timeout | undefined;
  private refreshing: Promise<void> | undefined;

  constructor(
    private readonly db: SqlExecutor,
    schema: string,
    private readonly logger: Logger,
    private readonly refreshMs = 1000,
  ) {
    this.table = `${quoteSchema(schema)}.opt_outs`;
  }

  private readonly table: string;

  /** Whether `msisdn` (E.164 digits) opted out of `subAccountId`'s messages. */
  has(subAccountId: string, msisdn: string): boolean {
    return this.optedOut.size > 0 && this.optedOut.has(keyOf(subAccountId, msisdn));
  }

  async start(): Promise<void> {
    await this.refresh();
    this.timer = setInterval(() => void this.refresh().catch((error: unknown) => this.logger.warn({ err: error }, 'opt-outs not refreshed; keeping the last known')), this.refreshMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** Reads what changed since the last refresh (one at a time). */
  refresh(): Promise<void> {
    this.refreshing ??= this.readChanges().finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  private async readChanges(): Promise<void> {
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
  }
}

const keyOf = (subAccountId: string, msisdn: string): string => `${subAccountId}\u0000${msisdn}`;
