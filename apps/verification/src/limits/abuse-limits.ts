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

/** One SMS to count: whose it is and where it goes. */
export interface CountedSend {
  accountId: string;
  subAccountId: string;
  msisdn: string;
}

const HOUR_MS = 3600_000;
const MINUTE_MS = 60_000;

/**
 * The SMS-pumping defence: every SMS a generation decides (first send or resend) is counted per
 * destination number within the account (in a rolling hour) and per sub-account (in a rolling
 * minute). The number's count is the account's own: counting across accounts would let one
 * account block the codes of every other account's users of a number, and tell it that others
 * sent to that number. Counts and the new row are in the command's transaction, and generations
 * for one number in one account are serialised, so the number's count is exact; a sub-account's
 * may be a few over under concurrent load on several partitions.
 */
export class AbuseLimits {
  private readonly table: string;

  constructor(
    schema: string,
    private readonly settings: AbuseLimitSettings,
  ) {
    this.table = `${quoteSchema(schema)}.sms_sends`;
  }

  /** Throws AbuseLimitError when one more SMS to `send.msisdn` at `now` is over a limit. */
  async check(db: SqlExecutor, send: CountedSend, now: Date): Promise<void> {
    const perDestination = await this.window(db, 'account_id = $1 AND msisdn = $2', [send.accountId, send.msisdn], now, HOUR_MS, this.settings.perDestinationPerHour);
    if (perDestination !== null) {
      throw new AbuseLimitError(`too many verification SMS to this number (at most ${this.settings.perDestinationPerHour} an hour)`, perDestination);
    }
    const perSubAccount = await this.window(db, 'sub_account_id = $1', [send.subAccountId], now, MINUTE_MS, this.settings.perSubAccountPerMinute);
    if (perSubAccount !== null) {
      throw new AbuseLimitError(`too many verification SMS for this sub-account (at most ${this.settings.perSubAccountPerMinute} a minute)`, perSubAccount);
    }
  }

  async record(db: SqlExecutor, send: CountedSend, now: Date): Promise<void> {
    await db.query(`INSERT INTO ${this.table} (account_id, sub_account_id, msisdn, sent_at) VALUES ($1, $2, $3, $4)`, [
      send.accountId,
      send.subAccountId,
      send.msisdn,
      now.toISOString(),
    ]);
  }

  /** Forgets sends older than the longest window. */
  async prune(db: SqlExecutor, now: Date): Promise<void> {
    await db.query(`DELETE FROM ${this.table} WHERE sent_at < $1`, [new Date(now.getTime() - HOUR_MS).toISOString()]);
  }

  /** Seconds until one more send fits in the window, or null when it fits now. */
  private async window(db: SqlExecutor, where: string, values: string[], now: Date, windowMs: number, limit: number): Promise<number | null> {
    // The send that must leave the window before one more fits: the limit-th newest.
    const n = values.length;
    const rows: { sent_at: Date | string }[] = await db.query(
      `SELECT sent_at FROM ${this.table} WHERE ${where} AND sent_at > $${n + 1} ORDER BY sent_at DESC OFFSET $${n + 2} LIMIT 1`,
      [...values, new Date(now.getTime() - windowMs).toISOString(), limit - 1],
    );
    const blocking = rows[0];
    if (!blocking) return null;
    return Math.max(1, Math.ceil((new Date(blocking.sent_at).getTime() + windowMs - now.getTime()) / 1000));
  }
}
