import { Pool } from 'pg';
import { platformServices, stackProcessOfRole, type RunningStack } from '@seed/platform-testing';

/** Every service's schema (tools/stack/processes.json): each keeps its decisions in its own `events` log. */
const SCHEMAS = platformServices().map((p) => p.schema);
/** The gateway's, which also holds the accounts. */
const GATEWAY_SCHEMA = stackProcessOfRole('gateway').schema;
/** The gateway's identity store, changed in place (a key revoked, a rate limit set) rather than by events. */
const ACCOUNT_TABLES = ['accounts', 'sub_accounts', 'api_keys'] as const;

/** `<schema>.events: 12`, `api_gateway.api_keys: "3 <md5 of the rows>"`, ... */
export type WriteSnapshot = Record<string, number | string>;

/**
 * What a stack has written, to show that a request wrote nothing: the length of every service's
 * event log, and the gateway's account tables row for row (a count alone would miss an update).
 * `request_grants` is left out: every request, refused or not, counts against its rate limit.
 */
export class StackWrites {
  private readonly pool: Pool;

  constructor(private readonly stack: RunningStack) {
    this.pool = new Pool({ connectionString: stack.env['DATABASE_URL'] ?? process.env['DATABASE_URL'], max: 1 });
  }

  async snapshot(): Promise<WriteSnapshot> {
    const snapshot: WriteSnapshot = {};
    for (const schema of SCHEMAS) {
      snapshot[`${schema}.events`] = await this.scalar<number>(`SELECT count(*)::int AS v FROM ${this.table(schema, 'events')}`);
    }
    for (const table of ACCOUNT_TABLES) {
      const rows = `SELECT t::text AS row FROM ${this.table(GATEWAY_SCHEMA, table)} t`;
      snapshot[`${GATEWAY_SCHEMA}.${table}`] = await this.scalar<string>(`SELECT count(*) || ' ' || coalesce(md5(string_agg(row, ',' ORDER BY row)), '') AS v FROM (${rows}) r`);
    }
    return snapshot;
  }

  close(): Promise<void> {
    return this.pool.end();
  }

  private table(schema: string, table: string): string {
    return `"${this.stack.schemaPrefix}${schema}".${table}`;
  }

  private async scalar<T>(sql: string): Promise<T> {
    const result = await this.pool.query<{ v: T }>(sql);
    return result.rows[0]?.v as T;
  }
}
