/**
 * Every service and the PostgreSQL schema it owns: the `schema` of its ServiceDefinition, before
 * DATABASE_SCHEMA_PREFIX. Tools may not import the apps, so the list is kept here and
 * database-roles.int.spec.ts compares it with the compiled definitions.
 */
export const SERVICE_SCHEMAS = {
  'api-gateway': 'api_gateway',
  'sms-batch': 'sms_batch',
  verification: 'verification',
  'agent-token': 'agent_token',
  'webhook-dispatcher': 'webhook_dispatcher',
} as const;

export type ServiceName = keyof typeof SERVICE_SCHEMAS;

export const SERVICE_NAMES = Object.keys(SERVICE_SCHEMAS) as ServiceName[];

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
