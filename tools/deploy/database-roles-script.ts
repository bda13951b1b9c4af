import { FOREIGN_OWNED_OBJECTS } from './database-role-sql';
import { roleOf, schemaOf, SERVICE_NAMES, type RoleNaming } from './database-service-schemas';

/**
 * The part of provisionServiceRoles that needs no passwords, as one PL/pgSQL block, for
 * CloudNativePG: its Cluster runs it as `postInitApplicationSQL` when it creates the database
 * (k8s/components/operators/postgres.yaml, kept equal to this by database-roles.unit.spec.ts),
 * and an operator pipes it to psql on a cluster made before. The roles are made NOLOGIN; the
 * Cluster's managed roles then give them LOGIN and their passwords from Secrets.
 */
export function rolesScript(naming: RoleNaming): string {
  const pairs = SERVICE_NAMES.map((s) => `['${schemaOf(s, naming)}', '${roleOf(s, naming)}']`).join(',\n      ');
  const takeOver = FOREIGN_OWNED_OBJECTS.replace(/\$1/g, 'pair[1]').replace(/\$2/g, 'pair[2]').replace(/\n/g, '\n    ');
  return `DO $roles$
DECLARE
  -- [schema, role] of every service (tools/deploy/database-service-schemas.ts)
  owners CONSTANT text[] := ARRAY[
      ${pairs}];
  pair text[];
  statement text;
BEGIN
  EXECUTE 'REVOKE CREATE ON SCHEMA public FROM PUBLIC';
  EXECUTE format('REVOKE ALL ON DATABASE %I FROM PUBLIC', current_database());
  FOREACH pair SLICE 1 IN ARRAY owners LOOP
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = pair[2]) THEN
      EXECUTE format('CREATE ROLE %I NOLOGIN', pair[2]);
    END IF;
    EXECUTE format('ALTER ROLE %I SET search_path = %I', pair[2], pair[1]);
    EXECUTE format('REVOKE ALL ON DATABASE %I FROM %I', current_database(), pair[2]);
    EXECUTE format('GRANT CONNECT ON DATABASE %I TO %I', current_database(), pair[2]);
    IF EXISTS (SELECT FROM pg_namespace WHERE nspname = pair[1]) THEN
      EXECUTE format('ALTER SCHEMA %I OWNER TO %I', pair[1], pair[2]);
    ELSE
      EXECUTE format('CREATE SCHEMA %I AUTHORIZATION %I', pair[1], pair[2]);
    END IF;
    EXECUTE format('REVOKE ALL ON SCHEMA %I FROM PUBLIC', pair[1]);
    -- What another role owns in the schema (one owner ran every migration before roles per service).
    FOR statement IN${takeOver}
    LOOP
      EXECUTE statement;
    END LOOP;
  END LOOP;
END
$roles$;
`;
}
