import { Pool } from 'pg';
import type { RunningStack } from '@seed/platform-testing';

/** Read-only look into the stack's sms-batch schema (`<schemaPrefix>sms_batch`). */
export class SmsBatchDb {
  readonly schema: string;
  private readonly pool: Pool;

  constructor(stack: RunningStack) {
    this.schema = `${stack.schemaPrefix}sms_batch`;
    this.pool = new Pool({ connectionString: stack.env['DATABASE_URL'] ?? process.env['DATABASE_URL'], max: 2 });
  }

  /** `"<schema>".<table>`, for SQL written by the tests. */
  table(name: string): string {
    return `"${this.schema}".${name}`;
  }

  async query<T>(sql: string, params: unknown[] = []): Promise<T[]> {
    const result = await this.pool.query(sql, params);
    return result.rows as T[];
  }

  async count(table: string, where = 'true', params: unknown[] = []): Promise<number> {
    const [row] = await this.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${this.table(table)} WHERE ${where}`, params);
    return row?.n ?? 0;
  }

  /**
   * Events of accepted requests in the log: what "nothing was written" is measured by. Carrier
   * delivery keeps appending lifecycle events (sent, delivered) of earlier batches meanwhile.
   */
  eventCount(): Promise<number> {
    return this.count('events', `type IN ('BatchSubmitted', 'MessageQueued', 'MessageRejected')`);
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}
