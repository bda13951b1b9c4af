import { rowsOf, type SqlExecutor } from '@seed/platform-event-store';
import { leaseTokenOf, type HeldRow } from './lease-token';
import { qualified, type WorkQueueTable } from './work-queue-table';

/**
 * The keys among `held` whose row carries another token than the claim's (another holder claimed
 * it after this one's lease ran out): their results must not be recorded. Their rows are locked,
 * in key order, so no claim can take them until the caller's transaction ends; a row that is gone
 * is not fenced off (it was finished already, and the caller's decision treats the result as the
 * repeat it is).
 */
export async function fencedOff(tx: SqlExecutor, q: WorkQueueTable, held: readonly HeldRow[]): Promise<Set<string>> {
  if (held.length === 0) return new Set();
  const rows = rowsOf<{ id: string; token: string | null }>(
    await tx.query(
      `SELECT ${q.id.column} AS id, ${q.token.column} AS token FROM ${qualified(q)} WHERE ${q.id.column} = ANY($1::${q.id.type}[]) ORDER BY ${q.id.column} FOR UPDATE`,
      [[...new Set(held.map((h) => h.id))]],
    ),
  );
  const tokenOf = new Map(rows.map((r) => [String(r.id), leaseTokenOf(r.token)]));
  return new Set(held.filter((h) => tokenOf.has(h.id) && tokenOf.get(h.id) !== h.leaseToken).map((h) => h.id));
}
