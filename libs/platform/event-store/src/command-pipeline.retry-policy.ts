import { ConcurrencyError } from './event-store';
import { isPermanentDatabaseError } from './sql-executor';

/**
 * What a caller does while the database is unreachable. `fail`: the error goes to the caller at
 * once. A Kafka command has a consumer behind it that retries it and dead-letters it at its limit,
 * and holding that consumer for a minute would stall its partition and every request behind it.
 * `wait`: the same work is tried again with backoff for about a minute (a database restart, not a
 * bug). For work nobody would redeliver: the message lifecycle writer's items from the sender and
 * the carrier, whose callers wait on its promise.
 */
export type DatabaseOutage = 'fail' | 'wait';

/**
 * The one retry policy of every command: why these limits is in
 * docs/adr/0102-one-command-pipeline.md. A conflict means another writer appended to a stream
 * this decision read; deciding again on fresh reads settles it, and when it keeps happening a few
 * times running something is wrong enough to surface. An outage is waited out for about a minute.
 */
export const COMMAND_RETRY_POLICY = {
  conflictAttempts: 5,
  outageAttempts: 16,
  outageBackoffMs: (attempt: number): number => Math.min(100 * 2 ** attempt, 5000),
} as const;

/** Where a retried piece of work stands: how many of its tries lost to another writer so far. */
export interface RetryState {
  conflicts: number;
}

/**
 * Runs `work` under COMMAND_RETRY_POLICY: again after a ConcurrencyError, and, with
 * `outage: 'wait'`, again after a transient database error. Anything else is thrown at once.
 */
export async function withCommandRetry<T>(outage: DatabaseOutage, work: (state: RetryState) => Promise<T>): Promise<T> {
  const state: RetryState = { conflicts: 0 };
  let outages = 0;
  for (;;) {
    try {
      return await work(state);
    } catch (error) {
      if (error instanceof ConcurrencyError) {
        if (++state.conflicts < COMMAND_RETRY_POLICY.conflictAttempts) continue;
      } else if (outage === 'wait' && isTransientDatabaseError(error) && ++outages < COMMAND_RETRY_POLICY.outageAttempts) {
        await new Promise((resolve) => setTimeout(resolve, COMMAND_RETRY_POLICY.outageBackoffMs(outages)));
        continue;
      }
      throw error;
    }
  }
}

/**
 * A database error that may go away by itself: one with a SQLSTATE that retrying can change, or
 * the connection failing underneath (a Node system error, or the driver's own words for it). A
 * refusal the deciding function throws is none of these: it is thrown at once.
 */
export function isTransientDatabaseError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const e = error as Error & { code?: unknown; driverError?: { code?: unknown } };
  const code = typeof e.code === 'string' ? e.code : typeof e.driverError?.code === 'string' ? e.driverError.code : '';
  if (/^[0-9A-Z]{5}$/.test(code)) return !isPermanentDatabaseError(error);
  if (/^E[A-Z]+$/.test(code)) return true;
  // TypeORM releases a transaction's query runner when its connection fails, and the COMMIT that
  // follows is refused with this: the connection went, and nothing of the transaction was committed.
  if (e.name === 'QueryRunnerAlreadyReleasedError') return true;
  return /connection|terminat|timeout|ECONN/i.test(e.message);
}
