import { platformServices, type PlatformServiceName } from '@seed/platform-testing';

export type ServiceName = PlatformServiceName;

/**
 * Every service and the PostgreSQL schema it owns, from tools/stack/processes.json (its `schema`,
 * held equal to the service's ServiceDefinition by stack-processes.unit.spec.ts in
 * libs/platform/testing), before DATABASE_SCHEMA_PREFIX. The gateway first, then the back-end
 * services: the order of k8s/components/operators/postgres.yaml, which database-roles.unit.spec.ts
 * compares with the SQL generated from this.
 */
export const SERVICE_SCHEMAS = Object.fromEntries(platformServices().map((p) => [p.name, p.schema])) as Readonly<Record<ServiceName, string>>;

export const SERVICE_NAMES = platformServices().map((p) => p.name);

/** Settings of one provisioning run that name things: both prefixes end up in every name. */
export interface RoleNaming {
  /** DATABASE_SCHEMA_PREFIX of the installation ('' in production). */
  schemaPrefix: string;
  /** Put before the prefixed schema name to make the role's name; 'seed_' by default. */
  rolePrefix: string;
}

// PostgreSQL cuts longer names without an error, and a login under the uncut name would then fail.
const MAX_NAME_BYTES = 63;
const PLAIN_NAME = /^[a-z_][a-z0-9_]*$/;

function checkedName(name: string): string {
  if (!PLAIN_NAME.test(name)) throw new Error(`"${name}" is not a plain lower-case PostgreSQL name`);
  if (Buffer.byteLength(name) > MAX_NAME_BYTES) throw new Error(`"${name}" is longer than ${MAX_NAME_BYTES} bytes`);
  return name;
}

export function schemaOf(service: ServiceName, naming: RoleNaming): string {
  return checkedName(`${naming.schemaPrefix}${SERVICE_SCHEMAS[service]}`);
}

export function roleOf(service: ServiceName, naming: RoleNaming): string {
  return checkedName(`${naming.rolePrefix}${naming.schemaPrefix}${SERVICE_SCHEMAS[service]}`);
}

/** The key of seed-secrets that gives one service its own URL (k8s/README.md, "A database per service"). */
export function databaseUrlKey(service: ServiceName): string {
  return `DATABASE_URL_${service.toUpperCase().replace(/-/g, '_')}`;
}
