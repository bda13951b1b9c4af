import type { DataSource } from 'typeorm';

/**
 * Runs a claim statement with sorts and sequential scans priced out, so the only plan left reads
 * the queue's due index in order from its front and stops at the batch: O(batch) whatever waits.
 * Planning each call (PLAN_EACH_CALL) is not enough by itself: statistics taken while the queue
 * was nearly empty (autovacuum's last ANALYZE before a burst) make a scan of every due row plus a
 * sort look cheaper than the index, and a claim then reads the whole backlog
 * (docs/adr/0013-work-queue-claims-cost-o-batch.md). The settings are LOCAL: they end with the
 * claim's transaction, and the two of them travel in one round trip.
 */
export async function runClaim(dataSource: DataSource, statement: string, params: readonly unknown[]): Promise<unknown> {
  return dataSource.transaction(async (tx) => {
    await tx.query('SET LOCAL enable_sort = off; SET LOCAL enable_seqscan = off');
    return tx.query(statement, [...params]);
  });
}
