/**
 * Builds one statement out of pieces written by different owners (a handler's reads, an
 * idempotency record, a rate limit's count), each adding its values and getting their `$n`
 * placeholders: one round trip to PostgreSQL instead of one per piece.
 */
export class StatementParams {
  readonly values: unknown[] = [];

  /** The placeholder of a new value. */
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/**
 * Several data-modifying statements as one: every piece but the last becomes a CTE of the last.
 * PostgreSQL runs every data-modifying CTE to completion whether or not it is referenced, all in
 * one snapshot, so the pieces must not depend on each other's rows.
 */
export function allInOne(statements: readonly string[]): string {
  const last = statements[statements.length - 1];
  if (last === undefined) throw new Error('allInOne: no statement');
  const before = statements.slice(0, -1);
  return before.length === 0 ? last : `WITH ${before.map((sql, i) => `w${i} AS (${sql})`).join(', ')} ${last}`;
}
