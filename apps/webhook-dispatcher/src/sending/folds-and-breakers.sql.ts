import { rowsOf, type SqlExecutor } from '@seed/platform-event-store';
import type { BreakerPolicy } from '@seed/webhook-dispatcher-domain';
import type { Fold } from './delivery-fold';

/** An endpoint's breaker as read: open-until from the reading's end (null: closed), and its version (each change adds one). */
export interface BreakerReading {
  failures: number;
  openInMs: number | null;
  version: number;
}

/** What a batch of attempts says of one endpoint (the domain's OutcomeRun, by origin). */
export interface BreakerRun {
  origin: string;
  reset: boolean;
  failures: number;
}

/**
 * Writes new folds of deliveries and applies runs of outcomes to their endpoints' breakers in one
 * statement (no round trip of its own for the breakers). The endpoint rows that change are locked
 * in origin order, so replicas recording outcomes for the same endpoints at once wait for each
 * other in one order, and each applies its run to the other's result (`breaker_after`, the
 * domain's afterOutcomes). Answers the breakers of every endpoint in `runs`, after them.
 */
export async function writeFoldsAndBreakers(
  tx: SqlExecutor,
  s: string,
  folds: readonly Fold[],
  runs: readonly BreakerRun[],
  policy: BreakerPolicy | undefined,
): Promise<Map<string, BreakerReading>> {
  const read = rowsOf<{ origin: string; failures: number; open_in_ms: number | null; version: string }>(
    await tx.query(
      `WITH runs AS (SELECT * FROM jsonb_to_recordset($2::jsonb) AS r(origin text, reset boolean, failures int)),
       touched AS (
         SELECT e.origin FROM ${s}.delivery_endpoints e JOIN runs r ON r.origin = e.origin
          WHERE r.failures > 0 OR (r.reset AND (e.failures > 0 OR e.open_until IS NOT NULL))
          ORDER BY e.origin FOR NO KEY UPDATE OF e),
       changed AS (
         UPDATE ${s}.delivery_endpoints e
            SET (failures, open_until) = (SELECT b.new_failures, b.new_open_until FROM ${s}.breaker_after(e.failures, e.open_until, r.reset, r.failures, $3::int, $4::double precision) b),
                breaker_version = e.breaker_version + 1
           FROM touched t JOIN runs r ON r.origin = t.origin
          WHERE e.origin = t.origin
         RETURNING e.origin, e.failures, (extract(epoch FROM e.open_until - now()) * 1000)::float8 AS open_in_ms, e.breaker_version AS version),
       folded AS (
         UPDATE ${s}.deliveries d
            SET state = f.state, attempts = f.attempts, version = f.version, window_start = f.window_start,
                next_attempt_at = COALESCE(f.next_attempt_at, d.next_attempt_at), lease_until = NULL,
                last_status = CASE WHEN f.touched_attempt THEN f.last_status ELSE d.last_status END,
                last_error = CASE WHEN f.touched_attempt THEN f.last_error ELSE d.last_error END,
                finished_at = f.finished_at
           FROM jsonb_to_recordset($1::jsonb) AS f(delivery_id uuid, state text, attempts int, version int, window_start timestamptz,
                next_attempt_at timestamptz, touched_attempt boolean, last_status int, last_error text, finished_at timestamptz)
          WHERE d.delivery_id = f.delivery_id)
       SELECT origin, failures, open_in_ms, version FROM changed
       UNION ALL
       SELECT e.origin, e.failures, (extract(epoch FROM e.open_until - now()) * 1000)::float8, e.breaker_version
         FROM runs r JOIN ${s}.delivery_endpoints e ON e.origin = r.origin
        WHERE r.origin NOT IN (SELECT origin FROM changed)`,
      [JSON.stringify(folds), JSON.stringify(runs), policy?.failureThreshold ?? 1, policy?.cooldownMs ?? 0],
    ),
  );
  return new Map(read.map((c) => [c.origin, { failures: c.failures, openInMs: c.open_in_ms, version: Number(c.version) }]));
}
