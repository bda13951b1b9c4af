/**
 * A table a service uses as a claimable queue: rows due at a time, leased to one holder at a time
 * by moving the due time forward (a claimed row leaves the front of the due index, and comes back
 * by itself when its holder dies), and fenced by a token each claim draws from a sequence.
 */
export interface WorkQueueTable {
  /** The schema, quoted (`quoteSchema`). */
  schema: string;
  table: string;
  /** The key column and its SQL type (for `unnest($1::<type>[])`). */
  id: { column: string; type: 'uuid' | 'text' | 'bigint' };
  /** When the row is due; a claim moves it forward by the lease. */
  due: string;
  /**
   * What a claim writes to the lease column: the lease's end (`lease-end`) or the claim's time
   * (`claim-time`, for a wing whose other statements read "held since"). Either way it is NULL
   * while nobody holds the row, and a release sets it NULL.
   */
  leaseUntil: { column: string; marks: 'lease-end' | 'claim-time' };
  /** The fencing token column (bigint) and the per-queue sequence a claim draws it from. */
  token: { column: string; sequence: string };
}

/** `schema.table`, for statements. */
export function qualified(q: WorkQueueTable): string {
  return `${q.schema}.${q.table}`;
}
