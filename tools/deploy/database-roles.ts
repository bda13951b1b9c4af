import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { withLibpqSslModes } from '@seed/platform-config';
import { databaseStatements, FOREIGN_OWNED_OBJECTS, ident, publicStatements, revokeFromOthers, roleStatements, schemaStatements } from './database-role-sql';
import { roleOf, schemaOf, SERVICE_NAMES, type RoleNaming, type ServiceName } from './database-service-schemas';

export interface ProvisionOptions {
  /** URL of a superuser (or of a role that may create roles and is a member of them) on the platform's database. */
  adminUrl: string;
  /** DATABASE_SCHEMA_PREFIX of the installation the roles are for; '' by default. */
  schemaPrefix?: string;
  /** Role names are `<rolePrefix><schemaPrefix><schema>`; 'seed_' by default. */
  rolePrefix?: string;
  /** A password per service; services left out get a new random one (so running again rotates theirs). */
  passwords?: Partial<Record<ServiceName, string>>;
  /**
   * The URL the services connect with, when it differs from adminUrl's host, port, database or
   * parameters (`sslmode`, `sslrootcert`); its user and password are replaced. adminUrl by default.
   */
  serviceUrlBase?: string;
}

// One provisioning at a time per database: concurrent changes of one ACL fail ("tuple concurrently updated").
const LOCK = 'seed database roles';

/**
 * Gives every service a LOGIN role that owns the service's schema (created, or taken over with
 * whatever is in it) and may connect to the database and nothing more; PUBLIC loses CONNECT,
 * TEMPORARY and CREATE on schema public. Idempotent: run it again to add a service, restore
 * privileges or rotate passwords. Returns each service's DATABASE_URL, with its password.
 */
export async function provisionServiceRoles(options: ProvisionOptions): Promise<Record<ServiceName, string>> {
  const naming = namingOf(options);
  const passwords = Object.fromEntries(SERVICE_NAMES.map((s) => [s, options.passwords?.[s] ?? newPassword()])) as Record<ServiceName, string>;
  await inTransaction(options.adminUrl, async (client, database) => {
    await muteStatementLog(client);
    for (const statement of publicStatements(database)) await client.query(statement);
    for (const service of SERVICE_NAMES) await provisionOne(client, database, service, naming, passwords[service]);
  });
  const base = options.serviceUrlBase ?? options.adminUrl;
  return Object.fromEntries(SERVICE_NAMES.map((s) => [s, serviceUrl(base, roleOf(s, naming), passwords[s])])) as Record<ServiceName, string>;
}

/** Drops the services' schemas (with every table in them) and their roles: for test runs, never for production. */
export async function dropServiceRoles(options: Pick<ProvisionOptions, 'adminUrl' | 'schemaPrefix' | 'rolePrefix'>): Promise<void> {
  const naming = namingOf(options);
  await inTransaction(options.adminUrl, async (client) => {
    for (const service of SERVICE_NAMES) {
      await client.query(`DROP SCHEMA IF EXISTS ${ident(schemaOf(service, naming))} CASCADE`);
      const role = roleOf(service, naming);
      if (!(await exists(client, 'SELECT 1 FROM pg_roles WHERE rolname = $1', role))) continue;
      // DROP OWNED also takes back the role's privileges on the database itself.
      await client.query(`DROP OWNED BY ${ident(role)}`);
      await client.query(`DROP ROLE ${ident(role)}`);
    }
  });
}

async function provisionOne(client: Client, database: string, service: ServiceName, naming: RoleNaming, password: string): Promise<void> {
  const role = roleOf(service, naming);
  const schema = schemaOf(service, naming);
  const others = SERVICE_NAMES.filter((s) => s !== service).map((s) => roleOf(s, naming));
  const roleExists = await exists(client, 'SELECT 1 FROM pg_roles WHERE rolname = $1', role);
  for (const statement of roleStatements(role, schema, password, roleExists)) await client.query(statement);
  // A role that was made a member of another (by hand) would hold that role's privileges too.
  const memberships = await client.query<{ statement: string }>(
    `SELECT format('REVOKE %s FROM %I', m.roleid::regrole, $1::text) AS statement FROM pg_auth_members m WHERE m.member = $1::regrole`,
    [role],
  );
  for (const { statement } of memberships.rows) await client.query(statement);
  for (const statement of databaseStatements(database, role)) await client.query(statement);
  const schemaExists = await exists(client, 'SELECT 1 FROM pg_namespace WHERE nspname = $1', schema);
  for (const statement of schemaStatements(schema, role, schemaExists)) await client.query(statement);
  const existingOthers = (await client.query<{ rolname: string }>('SELECT rolname FROM pg_roles WHERE rolname = ANY($1)', [others])).rows.map((r) => r.rolname);
  for (const statement of revokeFromOthers(schema, existingOthers)) await client.query(statement);
  const takeOver = await client.query<{ statement: string }>(FOREIGN_OWNED_OBJECTS, [schema, role]);
  for (const { statement } of takeOver.rows) await client.query(statement);
}

function namingOf(options: Pick<ProvisionOptions, 'schemaPrefix' | 'rolePrefix'>): RoleNaming {
  return { schemaPrefix: options.schemaPrefix ?? '', rolePrefix: options.rolePrefix ?? 'seed_' };
}

// URL-safe, so that it can stand in a DATABASE_URL unencoded; 192 bits.
const newPassword = (): string => randomBytes(24).toString('base64url');

function serviceUrl(base: string, role: string, password: string): string {
  const url = new URL(base);
  url.username = role;
  url.password = encodeURIComponent(password);
  return url.toString();
}

async function exists(client: Client, sql: string, name: string): Promise<boolean> {
  return ((await client.query(sql, [name])).rowCount ?? 0) > 0;
}

/** CREATE and ALTER ROLE carry the password: keep them out of the server log where we may. */
async function muteStatementLog(client: Client): Promise<void> {
  const { rows } = await client.query<{ rolsuper: boolean }>('SELECT rolsuper FROM pg_roles WHERE rolname = current_user');
  if (!rows[0]?.rolsuper) return;
  await client.query("SET LOCAL log_statement = 'none'");
  await client.query('SET LOCAL log_min_duration_statement = -1');
}

async function inTransaction(adminUrl: string, work: (client: Client, database: string) => Promise<void>): Promise<void> {
  const client = new Client({ connectionString: withLibpqSslModes(adminUrl) });
  await client.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [LOCK]);
    const database = (await client.query<{ db: string }>('SELECT current_database() AS db')).rows[0]?.db ?? '';
    await work(client, database);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    await client.end();
  }
}
