import { Client, type QueryResult } from 'pg';

/** Distinct statements kept prepared per connection; past it, new texts run unnamed as before. */
export const MAX_PREPARED_PER_CONNECTION = 500;

/**
 * Starts the text of a query that must be planned on every call: one over a work queue, a table
 * that goes from a few rows to thousands within seconds. Postgres keeps a prepared statement's
 * generic plan once it has one, and a plan made while the table was nearly empty (sequential scans,
 * a nested-loop anti-join) is orders of magnitude slower once it is full, until autovacuum's next
 * ANALYZE (docs/adr/0013-work-queue-claims-cost-o-batch.md).
 */
export const PLAN_EACH_CALL = '/* plan each call */';

/** Postgres refuses a prepared statement whose result columns changed under it (a table altered). */
const STALE_PLAN = '0A000';

/**
 * node-postgres's client, with every parameterised query run as a named prepared statement: the
 * server parses and plans it once per connection instead of on every call. The platform's queries
 * are short ones on indexes, so planning cost more than executing (docs/adr/0012-prepared-statements.md).
 *
 * Only queries with parameters change: they already take the extended protocol, so the one
 * difference is the statement's name. Queries without parameters (`BEGIN`, `COMMIT`, migrations,
 * multi-statement scripts) go as they did, and so do texts starting with PLAN_EACH_CALL. Statement
 * texts are fixed in the code (values always travel as parameters), so the number of names stays
 * small; a cap bounds it anyway.
 *
 * Used as the pool's `Client` (TypeORM's `extra.Client`), so TypeORM and everything above it are
 * unchanged.
 */
export class PreparedStatementClient extends Client {
  private readonly names = new Map<string, string>();
  private nextName = 1;

  // The signature is pg's widest overload; only the (text, values) promise form is changed.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  override query(config: any, values?: any, callback?: any): any {
    if (typeof config === 'string' && Array.isArray(values) && values.length > 0 && callback === undefined && !config.startsWith(PLAN_EACH_CALL)) {
      const name = this.nameFor(config);
      if (name) return this.queryPrepared(name, config, values);
    }
    return super.query(config, values, callback);
  }

  private nameFor(text: string): string | undefined {
    const known = this.names.get(text);
    if (known || this.names.size >= MAX_PREPARED_PER_CONNECTION) return known;
    const name = `p${this.nextName++}`;
    this.names.set(text, name);
    return name;
  }

  private async queryPrepared(name: string, text: string, values: unknown[]): Promise<QueryResult> {
    try {
      return await super.query({ name, text, values });
    } catch (error) {
      // The statement cannot be used again; the next call prepares the text under a new name. The
      // failed query is not retried here: inside a transaction the caller has to start over anyway.
      if ((error as { code?: unknown }).code === STALE_PLAN) this.names.delete(text);
      throw error;
    }
  }
}
