import type { DataSource } from 'typeorm';

/**
 * A metrics query with a statement timeout of its own, so that a slow one (a lock, a cold cache)
 * is cancelled by PostgreSQL instead of holding a pooled connection the service needs. A
 * transaction, since `SET LOCAL` lasts only until its end.
 */
export async function boundedQuery<T>(dataSource: DataSource, sql: string, parameters: unknown[] = [], timeoutMs = 2000): Promise<T[]> {
  return dataSource.transaction(async (tx) => {
    await tx.query(`SET LOCAL statement_timeout = ${Math.max(1, Math.floor(timeoutMs))}`);
    return (await tx.query(sql, parameters)) as T[];
  });
}
