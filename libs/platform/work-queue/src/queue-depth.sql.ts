import { qualified, type WorkQueueTable } from './work-queue-table';

/**
 * The queue's depth and age, one row (`due`, `oldest` in seconds): rows due now and held by no one.
 * One range scan of the due index: a claimed row's due time is moved forward by its lease, and rows
 * scheduled later lie past the range. `where` narrows it to the rows a wing counts as queued.
 */
export function dueDepthSql(q: WorkQueueTable, where?: string): string {
  return `SELECT count(*)::float8 AS due, coalesce(extract(epoch FROM now() - min(${q.due})), 0)::float8 AS oldest
                   FROM ${qualified(q)} WHERE ${where ? `${where} AND ` : ''}${q.due} <= now()`;
}
