import { quoteSchema, type SqlExecutor } from '@seed/platform-event-store';

export interface AbuseLimitSettings {
  perDestinationPerHour: number;
  perSubAccountPerMinute: number;
}

/** A generation would send more SMS than the abuse limits allow; answered 429 with Retry-After. */
export class AbuseLimitError extends Error {
  override readonly name = 'AbuseLimitError';
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

const HOUR_MS = 3600_000;
const MINUTE_MS = 60_000;

/**
 * The SMS-pumping defence: every SMS a generation decides (first send or resend) is counted per
 * destination number (across all sub-accounts, in a rolling hour) and per sub-account (in a rolling
 * minute). Counts and the new row are in the command's transaction, so they are exact for one
 * number (its generations are serialised) and at worst a few over for a sub-account under
 * concurrent load on several partitions.
 */
export class AbuseLimits {
  private readonly table: string;

  constructor(
    schema: string,
    private readonly settings: AbuseLimitSettings,
  ) {
    this.table = `${quoteSchema(schema)}.sms_sends`;
  }

  /** Throws AbuseLimitError when one more SMS to `msisdn` of `subAccountId` at `now` is over a limit. */
  async check(db: SqlExecutor, subAccountId: string, msisdn: string, now: Date): Promise<void> {
    const perDestination = await this.window(db, 'msisdn', msisdn, now, HOUR_MS, this.settings.perDestinationPerHour);
    if (perDestination !== null) {
      throw new AbuseLimitError(`too many verification SMS to this number (at most ${this.settings.perDestinationPerHour} an hour)`, perDestination);
    }
    const perSubAccount = await this.window(db, 'sub_account_id', subAccountId, now, MINUTE_MS, this.settings.perSubAccountPerMinute);
    if (perSubAccount !== null) {
      throw new AbuseLimitError(`too many verification SMS for this sub-account (at most ${this.settings.perSubAccountPerMinute} a minute)`, perSubAccount);
    }
  }

  async record(db: SqlExecutor, subAccountId: string, msisdn: string, now: Date): Promise<void> {
    await db.query(`INSERT INTO ${this.table} (sub_account_id, msisdn, sent_at) VALUES ($1, $2, $3)`, [subAccountId, msisdn, now.toISOString()]);
  }

  /** Forgets sends older than the longest window. */
  async prune(db: SqlExecutor, now: Date): Promise<void> {
    await db.query(`DELETE FROM ${this.table} WHERE sent_at < $1`, [new Date(now.getTime() - HOUR_MS).toISOString()]);
  }

  /** Seconds until one more send fits in the window, or null when it fits now. */
  private async window(db: SqlExecutor, column: 'msisdn' | 'sub_account_id', value: string, now: Date, windowMs: number, limit: number): Promise<number | null> {
    // The send that must leave the window before one more fits: the limit-th newest.
    const rows: { sent_at: Date | string }[] = await db.query(
      `SELECT sent_at FROM ${this.table} WHERE ${column} = $1 AND sent_at > $2 ORDER BY sent_at DESC OFFSET $3 LIMIT 1`,
      [value, new Date(now.getTime() - windowMs).toISOString(), limit - 1],
    );
    const blocking = rows[0];
    if (!blocking) return null;
    return Math.max(1, Math.ceil((new Date(blocking.sent_at).getTime() + windowMs - now.getTime()) / 1000));
  }
}
