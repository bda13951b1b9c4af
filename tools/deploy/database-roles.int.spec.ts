// One role per service (tools/deploy/database-roles.ts) against the real PostgreSQL: the services'
// own migrations run as their roles, and the internet-facing webhook dispatcher's role can neither
// read nor write the gateway's API keys, nor create anything outside its schema.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { withLibpqSslModes } from '@seed/platform-config';
import { eventStoreSchema, runMigrations, type Migration } from '@seed/platform-event-store';
import { requireEnv, uniqueName } from '@seed/platform-testing';
import { dropServiceRoles, provisionServiceRoles } from './database-roles';
import { rolesScript } from './database-roles-script';
import { SERVICE_NAMES, SERVICE_SCHEMAS, type ServiceName } from './database-service-schemas';
import { ROOT, SERVICE_DEFINITIONS } from './manifests';

const adminUrl = requireEnv('DATABASE_URL');
const schemaPrefix = `${uniqueName('it_roles')}_`;
const gatewaySchema = `${schemaPrefix}api_gateway`;
let urls: Record<ServiceName, string>;
let services: Record<ServiceName, Definition>;

interface Definition {
  schema: string;
  migrations: Migration[];
}

/**
 * The compiled ServiceDefinitions with their migrations' statements written out for one schema
 * prefix. Read in a child process, as manifests.ts does: tools may not import the apps' sources,
 * and dist/ in this process would register the platform's metrics a second time.
 */
function definitions(prefix: string): Record<ServiceName, Definition> {
  const script = `
    require('reflect-metadata');
    const { quoteSchema } = require(process.env.EVENT_STORE);
    const out = {};
    for (const [service, file] of Object.entries(JSON.parse(process.env.DEFINITIONS))) {
      const d = Object.values(require(file)).find((v) => v && typeof v.schema === 'string' && Array.isArray(v.migrations));
      const s = quoteSchema(process.env.PREFIX + d.schema);
      out[service] = { schema: d.schema, migrations: d.migrations.map((m) => ({ id: m.id, statements: m.statements(s) })) };
    }
    console.log(JSON.stringify(out));`;
  const files = Object.fromEntries(Object.entries(SERVICE_DEFINITIONS).map(([s, f]) => [s, join(ROOT, f)]));
  const out = execFileSync(process.execPath, ['-e', script], {
    cwd: ROOT,
    env: { PATH: process.env['PATH'] ?? '', LOG_LEVEL: 'silent', PREFIX: prefix, DEFINITIONS: JSON.stringify(files), EVENT_STORE: join(ROOT, 'dist/libs/platform/event-store/src') },
  });
  const parsed = JSON.parse(out.toString()) as Record<ServiceName, { schema: string; migrations: { id: string; statements: string[] }[] }>;
  const toDefinition = (d: (typeof parsed)[ServiceName]): Definition => ({ schema: d.schema, migrations: d.migrations.map((m) => ({ id: m.id, statements: () => m.statements })) });
  return Object.fromEntries(SERVICE_NAMES.map((s) => [s, toDefinition(parsed[s])])) as Record<ServiceName, Definition>;
}

async function migrateAs(service: ServiceName): Promise<string[]> {
  const ds = await new DataSource({ type: 'postgres', url: withLibpqSslModes(urls[service]), extra: { max: 1 } }).initialize();
  try {
    return await runMigrations(ds, `${schemaPrefix}${SERVICE_SCHEMAS[service]}`, [...eventStoreSchema, ...services[service].migrations]);
  } finally {
    await ds.destroy();
  }
}

async function asRole<T>(service: ServiceName | 'admin', work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: withLibpqSslModes(service === 'admin' ? adminUrl : urls[service]) });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** The SQLSTATE a statement fails with, or 'ok'. */
async function outcome(service: ServiceName, sql: string): Promise<string> {
  return asRole(service, (c) => c.query(sql).then(
    () => 'ok',
    (error: { code?: string }) => error.code ?? 'error',
  ));
}

const tableOwner = (table: string): Promise<string | undefined> =>
  asRole('admin', async (c) => (await c.query<{ owner: string }>('SELECT tableowner AS owner FROM pg_tables WHERE schemaname = $1 AND tablename = $2', [gatewaySchema, table])).rows[0]?.owner);

beforeAll(async () => {
  services = definitions(schemaPrefix);
  urls = await provisionServiceRoles({ adminUrl, schemaPrefix });
});

// For the SQL CloudNativePG runs: an installation of one owner, taken over.
const scriptPrefix = `${uniqueName('it_roles_sql')}_`;

afterAll(async () => {
  await dropServiceRoles({ adminUrl, schemaPrefix });
  await dropServiceRoles({ adminUrl, schemaPrefix: scriptPrefix });
});

describe('database roles', () => {
  it('knows every service by the schema of its definition', () => {
    expect(Object.fromEntries(SERVICE_NAMES.map((s) => [s, services[s].schema]))).toEqual(SERVICE_SCHEMAS);
  });

  it('lets each service migrate its own schema as its role, without CREATE on the database', async () => {
    expect(await migrateAs('api-gateway')).toContain('001-accounts');
    expect(await migrateAs('webhook-dispatcher')).toContain('001-webhooks');
    // A second start finds everything applied (the schema exists: no CREATE SCHEMA is tried).
    expect(await migrateAs('api-gateway')).toEqual([]);
    expect(await tableOwner('api_keys')).toBe(`seed_${gatewaySchema}`);
  });

  it('lets the gateway use its own tables', async () => {
    const rows = await asRole('api-gateway', async (c) => {
      await c.query(`INSERT INTO "${gatewaySchema}".accounts (account_id) VALUES ('acme')`);
      await c.query(`INSERT INTO "${gatewaySchema}".api_keys (api_key_id, account_id, key_hash) VALUES ('key_1', 'acme', '\\x01')`);
      await c.query(`UPDATE "${gatewaySchema}".api_keys SET revoked_at = now() WHERE api_key_id = 'key_1'`);
      return (await c.query(`SELECT api_key_id FROM api_keys`)).rows; // search_path is its schema
    });
    expect(rows).toEqual([{ api_key_id: 'key_1' }]);
  });

  it("refuses the dispatcher's role the gateway's api_keys and any object outside its schema", async () => {
    const keys = `"${gatewaySchema}".api_keys`;
    const attempts = {
      select: `SELECT * FROM ${keys}`,
      insert: `INSERT INTO ${keys} (api_key_id, account_id, key_hash) VALUES ('key_2', 'acme', '\\x02')`,
      update: `UPDATE ${keys} SET revoked_at = NULL`,
      delete: `DELETE FROM ${keys}`,
      createInGateway: `CREATE TABLE "${gatewaySchema}".stolen (x int)`,
      createInPublic: 'CREATE TABLE public.stolen (x int)',
      createSchema: `CREATE SCHEMA "${schemaPrefix}stolen"`,
      createTemporary: 'CREATE TEMPORARY TABLE stolen (x int)',
    };
    const results: Record<string, string> = {};
    for (const [name, sql] of Object.entries(attempts)) results[name] = await outcome('webhook-dispatcher', sql);
    // 42501: insufficient_privilege.
    expect(results).toEqual(Object.fromEntries(Object.keys(attempts).map((name) => [name, '42501'])));
    expect(await outcome('webhook-dispatcher', `SELECT count(*) FROM "${schemaPrefix}webhook_dispatcher".events`)).toBe('ok');
  });

  it('is idempotent, keeps given passwords, and takes over what another role created in a schema', async () => {
    const passwords = Object.fromEntries(SERVICE_NAMES.map((s) => [s, decodeURIComponent(new URL(urls[s]).password)]));
    await asRole('admin', (c) => c.query(`CREATE TABLE "${gatewaySchema}".left_by_admin (x int)`));
    const again = await provisionServiceRoles({ adminUrl, schemaPrefix, passwords });
    expect(again).toEqual(urls);
    expect(await tableOwner('left_by_admin')).toBe(`seed_${gatewaySchema}`);
    expect(await tableOwner('api_keys')).toBe(`seed_${gatewaySchema}`);
    expect(await migrateAs('api-gateway')).toEqual([]);
    expect(await outcome('webhook-dispatcher', `SELECT * FROM "${gatewaySchema}".api_keys`)).toBe('42501');
    expect(await outcome('api-gateway', 'SELECT count(*) FROM api_keys')).toBe('ok');
  });

  it('as SQL (CloudNativePG), takes over the schemas of an installation that one owner migrated', async () => {
    const gateway = `${scriptPrefix}api_gateway`;
    const dispatcher = `${scriptPrefix}webhook_dispatcher`;
    const role = `seed_${gateway}`;
    const owners = await asRole('admin', async (c) => {
      await c.query(`CREATE SCHEMA "${gateway}"`);
      await c.query(`CREATE TABLE "${gateway}".api_keys (id bigint GENERATED ALWAYS AS IDENTITY, key text)`);
      await c.query(`CREATE FUNCTION "${gateway}".f() RETURNS int LANGUAGE sql AS 'SELECT 1'`);
      await c.query(`CREATE TYPE "${gateway}".state AS ENUM ('a')`);
      await c.query(rolesScript({ schemaPrefix: scriptPrefix, rolePrefix: 'seed_' }));
      await c.query(rolesScript({ schemaPrefix: scriptPrefix, rolePrefix: 'seed_' })); // again: no change, no error
      const { rows } = await c.query<{ kind: string; owner: string }>(
        `SELECT 'schema' AS kind, nspowner::regrole::text AS owner FROM pg_namespace WHERE nspname = $1
         UNION ALL SELECT 'table', relowner::regrole::text FROM pg_class WHERE oid = $2::regclass
         UNION ALL SELECT 'function', proowner::regrole::text FROM pg_proc WHERE oid = $3::regprocedure
         UNION ALL SELECT 'type', typowner::regrole::text FROM pg_type WHERE oid = $4::regtype
         UNION ALL SELECT 'dispatcher schema', nspowner::regrole::text FROM pg_namespace WHERE nspname = $5`,
        [gateway, `"${gateway}".api_keys`, `"${gateway}".f()`, `"${gateway}".state`, dispatcher],
      );
      return rows;
    });
    expect(owners).toEqual([
      { kind: 'schema', owner: role },
      { kind: 'table', owner: role },
      { kind: 'function', owner: role },
      { kind: 'type', owner: role },
      { kind: 'dispatcher schema', owner: `seed_${dispatcher}` },
    ]);
  });
});
