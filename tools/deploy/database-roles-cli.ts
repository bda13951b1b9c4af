// `npm run db:roles -- [--out FILE] [--rotate] [--schema-prefix P] [--role-prefix seed_] [--service-url URL]`
// `npm run db:roles -- --sql [--schema-prefix P]` prints the same without passwords, as SQL for psql
// (and for CloudNativePG's postInitApplicationSQL); it connects nowhere.
// Gives every service its own PostgreSQL role owning its schema (docs/security.md, "PostgreSQL").
// Connects with DATABASE_ADMIN_URL, else DATABASE_URL (a superuser's URL; .local/infra.env locally).
// Prints each service's URL as `DATABASE_URL_<SERVICE>=...`, or writes them to FILE (mode 0600),
// the shape `kubectl create secret generic --from-env-file` takes. With --out, passwords already in
// FILE are kept unless --rotate: running it again changes nothing the services hold.
import { existsSync, readFileSync, writeFileSync, chmodSync } from 'node:fs';
import { provisionServiceRoles } from './database-roles';
import { rolesScript } from './database-roles-script';
import { databaseUrlKey, SERVICE_NAMES, type ServiceName } from './database-service-schemas';

interface CliOptions {
  out?: string;
  rotate: boolean;
  sql: boolean;
  schemaPrefix?: string;
  rolePrefix?: string;
  serviceUrl?: string;
}

function parseArgs(argv: string[]): CliOptions {
  const options: CliOptions = { rotate: false, sql: false };
  const value = (i: number): string => {
    const v = argv[i + 1];
    if (v === undefined || v.startsWith('--')) throw new Error(`${argv[i]} needs a value`);
    return v;
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--rotate') options.rotate = true;
    else if (arg === '--sql') options.sql = true;
    else if (arg === '--out') options.out = value(i++);
    else if (arg === '--schema-prefix') options.schemaPrefix = value(i++);
    else if (arg === '--role-prefix') options.rolePrefix = value(i++);
    else if (arg === '--service-url') options.serviceUrl = value(i++);
    else throw new Error(`unknown argument ${arg ?? ''}`);
  }
  return options;
}

/** Passwords of an earlier run's file, so that a second run keeps what the services were given. */
function passwordsIn(file: string): Partial<Record<ServiceName, string>> {
  const lines = readFileSync(file, 'utf8').split('\n');
  const found: Partial<Record<ServiceName, string>> = {};
  for (const service of SERVICE_NAMES) {
    const line = lines.find((l) => l.startsWith(`${databaseUrlKey(service)}=`));
    if (line) found[service] = decodeURIComponent(new URL(line.slice(line.indexOf('=') + 1)).password);
  }
  return found;
}

async function main(argv: string[]): Promise<void> {
  const options = parseArgs(argv);
  if (options.sql) {
    process.stdout.write(rolesScript({ schemaPrefix: options.schemaPrefix ?? process.env['DATABASE_SCHEMA_PREFIX'] ?? '', rolePrefix: options.rolePrefix ?? 'seed_' }));
    return;
  }
  const adminUrl = process.env['DATABASE_ADMIN_URL'] || process.env['DATABASE_URL'];
  if (!adminUrl) throw new Error('set DATABASE_ADMIN_URL (or DATABASE_URL) to a superuser URL of the platform database');
  const keep = options.out && !options.rotate && existsSync(options.out) ? passwordsIn(options.out) : {};
  const urls = await provisionServiceRoles({
    adminUrl,
    schemaPrefix: options.schemaPrefix ?? process.env['DATABASE_SCHEMA_PREFIX'] ?? '',
    ...(options.rolePrefix === undefined ? {} : { rolePrefix: options.rolePrefix }),
    ...(options.serviceUrl === undefined ? {} : { serviceUrlBase: options.serviceUrl }),
    passwords: keep,
  });
  const text = SERVICE_NAMES.map((s) => `${databaseUrlKey(s)}=${urls[s]}\n`).join('');
  if (options.out) {
    writeFileSync(options.out, text, { mode: 0o600 });
    chmodSync(options.out, 0o600); // writeFileSync keeps the mode of a file that exists
    process.stderr.write(`[db:roles] ${SERVICE_NAMES.length} roles provisioned; their URLs are in ${options.out}\n`);
  } else {
    process.stdout.write(text);
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`[db:roles] ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
