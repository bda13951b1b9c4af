import { PLAN_EACH_CALL } from '@seed/platform-event-store';
import { qualified, type WorkQueueTable } from './work-queue-table';

/** A new fencing token from the queue's sequence (one per call of the expression: per row in a SET list). */
export function nextToken(q: WorkQueueTable): string {
  return `nextval('${q.schema}.${q.token.sequence}')`;
}

/**
 * The SET list of a claim: the due time moved forward by the lease (`leaseMsParam`, milliseconds),
 * the lease column marked, and a new fencing token. Columns are not qualified (SET does not allow
 * it), so it fits any UPDATE of the table, a wing's own claim statement included.
 */
export function leaseSet(q: WorkQueueTable, leaseMsParam: string): string {
  const leaseEnd = `now() + make_interval(secs => ${leaseMsParam}::double precision / 1000)`;
  const mark = q.leaseUntil.marks === 'lease-end' ? leaseEnd : 'now()';
  return `${q.due} = ${leaseEnd}, ${q.leaseUntil.column} = ${mark}, ${q.token.column} = ${nextToken(q)}`;
}

export interface ClaimStatement {
  /** The table's alias in the statement. */
  alias: string;
  /**
   * The wing's selection of the rows to take: one column, the key, of due rows nobody holds, in
   * the order they are due, LIMITed, `FOR UPDATE SKIP LOCKED` (replicas share the queue and a
   * claim never waits). Its shape is the wing's: it decides the plan.
   */
  dueRows: string;
  /** The lease in milliseconds, as a parameter (`$2`). */
  leaseMsParam: string;
  /** More of the SET list (e.g. `attempts = q.attempts + 1`). */
  alsoSet?: string;
  returning: string;
}

/**
 * A claim: `UPDATE ... SET <lease> WHERE key IN (<due rows>) RETURNING ...`, planned on each call
 * (PLAN_EACH_CALL): a queue goes from empty to a whole batch within seconds, and a plan kept from
 * an empty queue scans all of it.
 */
export function claimStatement(q: WorkQueueTable, c: ClaimStatement): string {
  const also = c.alsoSet ? `,\n              ${c.alsoSet}` : '';
  return `${PLAN_EACH_CALL} UPDATE ${qualified(q)} ${c.alias}
          SET ${leaseSet(q, c.leaseMsParam)}${also}
        WHERE ${c.alias}.${q.id.column} IN (${c.dueRows})
        RETURNING ${c.returning}`;
}
