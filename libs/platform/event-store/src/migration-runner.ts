import type { DataSource } from 'typeorm';
import { quoteSchema } from './sql-executor';

export interface Migration {
  /** Unique and ordered within a service, e.g. `001-event-store`. */
  id: string;
  statements: (schema: string) => string[];
}

/**
 * Applies a service's migrations to its schema, each once, in order, under an advisory lock so
 * that replicas starting together do not race. Schemas are per service (and per test file), which
 * TypeORM's own migration table does not model, hence this small runner.
 */
export async function runMigrations(dataSource: DataSource, schema: string, migrations: Migration[]): Promise<string[]> {
  const s = quoteSchema(schema);
  const applied: string[] = [];
  await dataSource.transaction(async (manager) => {
    await manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`migrations:${schema}`]);
    // CREATE SCHEMA checks the database's CREATE privilege before IF NOT EXISTS: a service role
    // that owns its schema but may not create schemas (tools/deploy/database-roles.ts) must skip it.
    const found = (await manager.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema])) as unknown[];
    if (found.length === 0) await manager.query(`CREATE SCHEMA IF NOT EXISTS ${s}`);
    await manager.query(
      `CREATE TABLE IF NOT EXISTS ${s}.schema_migrations (id text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    const done = new Set<string>(
      ((await manager.query(`SELECT id FROM ${s}.schema_migrations`)) as { id: string }[]).map((r) => r.id),
    );
    for (const migration of migrations) {
      if (done.has(migration.id)) continue;
      for (const statement of migration.statements(s)) await manager.query(statement);
      await manager.query(`INSERT INTO ${s}.schema_migrations (id) VALUES ($1)`, [migration.id]);
      applied.push(migration.id);
    }
  });
  return applied;
}
