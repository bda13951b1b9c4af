/**
 * The slice of a TypeORM EntityManager / QueryRunner the event store needs: plain SQL.
 * Taking this instead of a DataSource lets callers put an append and their own writes
 * (read models, idempotency records) in one transaction.
 */
export interface SqlExecutor {
  // Rows come back untyped from the driver; callers state the row type they expect.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  query(sql: string, parameters?: unknown[]): Promise<any>;
}

/**
 * TypeORM's postgres driver returns `[rows, rowCount]` for UPDATE and DELETE and plain rows for
 * everything else; this gives rows either way.
 */
export function rowsOf<T>(result: unknown): T[] {
  if (Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number') {
    return result[0] as T[];
  }
  return result as T[];
}

/** Number of rows an UPDATE or DELETE touched, from TypeORM's raw result. */
export function affectedRows(result: unknown): number {
  if (Array.isArray(result) && result.length === 2 && typeof result[1] === 'number') return result[1];
  return Array.isArray(result) ? result.length : 0;
}

/** Schema names come from configuration, never from users; still, only plain identifiers pass. */
export function quoteSchema(schema: string): string {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) throw new Error(`invalid schema name: ${schema}`);
  return `"${schema}"`;
}

/**
 * Postgres errors that come out the same however often a command is retried: data exceptions
 * (class 22), integrity violations other than unique ones (23, which concurrent writers can cause
 * and a retry resolves), and statement errors (42). Connection and server errors are transient.
 */
export function isPermanentDatabaseError(error: unknown): boolean {
  const e = error as { code?: unknown; driverError?: { code?: unknown } };
  const code = typeof e?.code === 'string' ? e.code : typeof e?.driverError?.code === 'string' ? e.driverError.code : '';
  if (!/^[0-9A-Z]{5}$/.test(code)) return false;
  return (code.startsWith('22') || code.startsWith('23') || code.startsWith('42')) && code !== '23505';
}
