import { quoteSchema, type SqlExecutor, type StatementParams } from '@seed/platform-event-store';

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

  /**
   * The two windows' blocking sends (the limit-th newest send within each; null when one more fits)
   * as columns `destination_blocking` and `sub_account_blocking` of a statement that reads other
   * things too: the generation reads everything it decides on in one round trip.
   */
  blockingColumns(params: StatementParams, send: CountedSend, now: Date): string {
    const perDestination = this.blocking(params, `account_id = ${params.add(send.accountId)} AND msisdn = ${params.add(send.msisdn)}`, now, HOUR_MS, this.settings.perDestinationPerHour);
    const perSubAccount = this.blocking(params, `sub_account_id = ${params.add(send.subAccountId)}`, now, MINUTE_MS, this.settings.perSubAccountPerMinute);
    return `${perDestination} AS destination_blocking, ${perSubAccount} AS sub_account_blocking`;
  }

  /** Throws AbuseLimitError when one more SMS at `now` is over a limit, from what blockingColumns read. */
  verdict(row: BlockingSends, now: Date): void {
    const perDestination = retryAfter(row.destination_blocking, now, HOUR_MS);
    if (perDestination !== null) {
      throw new AbuseLimitError(`too many verification SMS to this number (at most ${this.settings.perDestinationPerHour} an hour)`, perDestination);
    }
    const perSubAccount = retryAfter(row.sub_account_blocking, now, MINUTE_MS);
    if (perSubAccount !== null) {
      throw new AbuseLimitError(`too many verification SMS for this sub-account (at most ${this.settings.perSubAccountPerMinute} a minute)`, perSubAccount);
    }
  }

  /** Counts one SMS: a statement to run with the generation's other writes (allInOne). */
  recordStatement(params: StatementParams, send: CountedSend, now: Date): string {
    return `INSERT INTO ${this.table} (account_id, sub_account_id, msisdn, sent_at)
            VALUES (${params.add(send.accountId)}, ${params.add(send.subAccountId)}, ${params.add(send.msisdn)}, ${params.add(now.toISOString())})`;
  }

  /** Forgets sends older than the longest window. */
  async prune(db: SqlExecutor, now: Date): Promise<void> {
    await db.query(`DELETE FROM ${this.table} WHERE sent_at < $1`, [new Date(now.getTime() - HOUR_MS).toISOString()]);
  }

  /** The send that must leave the window before one more fits: the limit-th newest. */
  private blocking(params: StatementParams, where: string, now: Date, windowMs: number, limit: number): string {
    return `(SELECT sent_at FROM ${this.table} WHERE ${where} AND sent_at > ${params.add(new Date(now.getTime() - windowMs).toISOString())}
              ORDER BY sent_at DESC OFFSET ${params.add(limit - 1)} LIMIT 1)`;
  }
}

/** What blockingColumns read. */
export interface BlockingSends {
  destination_blocking: Date | string | null;
  sub_account_blocking: Date | string | null;
}

/** Seconds until one more send fits in the window, or null when it fits now. */
function retryAfter(blocking: Date | string | null, now: Date, windowMs: number): number | null {
  if (blocking === null) return null;
  return Math.max(1, Math.ceil((new Date(blocking).getTime() + windowMs - now.getTime()) / 1000));
}
