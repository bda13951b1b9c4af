import type { DataSource, EntityManager } from 'typeorm';
import { quoteSchema } from './sql-executor';

export interface Migration {
  /** Unique and ordered within a service, e.g. `001-event-store`. */
  id: string;
  statements: (schema: string) => string[];
}

/**
 * Applies a service's migrations to its schema, each once, in order, under a lock of the schema's
 * `schema_migrations` table so that replicas starting together do not race (a table lock, not an
 * advisory lock: only a role with rights on the table can take it, schema-locks.ts). Schemas are
 * per service (and per test file), which TypeORM's own migration table does not model, hence this
 * small runner.
 */
export async function runMigrations(dataSource: DataSource, schema: string, migrations: Migration[]): Promise<string[]> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await dataSource.transaction((manager) => migrate(manager, schema, migrations));
    } catch (error) {
      // Two replicas creating the schema or its table at once: one of them is refused; again, it finds them.
      if (attempt < CREATION_ATTEMPTS && isCreationRace(error)) continue;
      throw error;
    }
  }
}

const CREATION_ATTEMPTS = 5;

async function migrate(manager: EntityManager, schema: string, migrations: Migration[]): Promise<string[]> {
  const s = quoteSchema(schema);
  const applied: string[] = [];
  // CREATE SCHEMA checks the database's CREATE privilege before IF NOT EXISTS: a service role
  // that owns its schema but may not create schemas (tools/deploy/database-roles.ts) must skip it.
  const found = (await manager.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema])) as unknown[];
  if (found.length === 0) await manager.query(`CREATE SCHEMA IF NOT EXISTS ${s}`);
  await manager.query(`CREATE TABLE IF NOT EXISTS ${s}.schema_migrations (id text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
  // A mode that conflicts with itself: one migrator at a time; the next reads what the first applied.
  await manager.query(`LOCK TABLE ${s}.schema_migrations IN SHARE ROW EXCLUSIVE MODE`);
  const done = new Set<string>(((await manager.query(`SELECT id FROM ${s}.schema_migrations`)) as { id: string }[]).map((r) => r.id));
  for (const migration of migrations) {
    if (done.has(migration.id)) continue;
    for (const statement of migration.statements(s)) await manager.query(statement);
    await manager.query(`INSERT INTO ${s}.schema_migrations (id) VALUES ($1)`, [migration.id]);
    applied.push(migration.id);
  }
  return applied;
}

/** A catalog row another transaction made first: duplicate schema, duplicate table, or their unique index. */
function isCreationRace(error: unknown): boolean {
  const e = error as { code?: unknown; driverError?: { code?: unknown } };
  const code = typeof e?.code === 'string' ? e.code : e?.driverError?.code;
  return code === '23505' || code === '42P06' || code === '42P07';
}
