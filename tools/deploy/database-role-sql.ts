/**
 * The statements that give one service its own role and schema. Names are checked plain
 * identifiers (database-service-schemas.ts); the only free text is the password.
 */
export const ident = (name: string): string => `"${name.replace(/"/g, '""')}"`;

// standard_conforming_strings is on (the default since PostgreSQL 9.1): only quotes need doubling.
export const literal = (text: string): string => `'${text.replace(/'/g, "''")}'`;

/** A LOGIN role with nothing beyond its own schema: none of the attributes that reach further. */
export function roleStatements(role: string, schema: string, password: string, exists: boolean): string[] {
  const attributes = 'LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS INHERIT';
  return [
    exists ? `ALTER ROLE ${ident(role)} WITH ${attributes} PASSWORD ${literal(password)}` : `CREATE ROLE ${ident(role)} WITH ${attributes} PASSWORD ${literal(password)}`,
    // Unqualified names resolve in the service's schema only, never in public.
    `ALTER ROLE ${ident(role)} SET search_path = ${ident(schema)}`,
  ];
}

/** What every service role may do on the database: connect, and nothing else (no schemas, no temporary tables). */
export function databaseStatements(database: string, role: string): string[] {
  return [`REVOKE ALL ON DATABASE ${ident(database)} FROM ${ident(role)}`, `GRANT CONNECT ON DATABASE ${ident(database)} TO ${ident(role)}`];
}

/**
 * Taken from PUBLIC once per run: PostgreSQL 15 already keeps CREATE on public from PUBLIC, but an
 * upgraded cluster may not; CONNECT and TEMPORARY go so that only the roles granted them connect.
 */
export function publicStatements(database: string): string[] {
  return [`REVOKE CREATE ON SCHEMA public FROM PUBLIC`, `REVOKE ALL ON DATABASE ${ident(database)} FROM PUBLIC`];
}

export function schemaStatements(schema: string, role: string, exists: boolean): string[] {
  return [
    exists ? `ALTER SCHEMA ${ident(schema)} OWNER TO ${ident(role)}` : `CREATE SCHEMA ${ident(schema)} AUTHORIZATION ${ident(role)}`,
    `REVOKE ALL ON SCHEMA ${ident(schema)} FROM PUBLIC`,
  ];
}

/** Whatever another service's role was given on this schema (by hand, or by an earlier setup) is taken back. */
export function revokeFromOthers(schema: string, others: string[]): string[] {
  if (others.length === 0) return [];
  const list = others.map(ident).join(', ');
  return [
    `REVOKE ALL ON SCHEMA ${ident(schema)} FROM ${list}`,
    `REVOKE ALL ON ALL TABLES IN SCHEMA ${ident(schema)} FROM ${list}`,
    `REVOKE ALL ON ALL SEQUENCES IN SCHEMA ${ident(schema)} FROM ${list}`,
    `REVOKE ALL ON ALL ROUTINES IN SCHEMA ${ident(schema)} FROM ${list}`,
  ];
}

/**
 * Objects in the schema that another role owns (an installation from before roles per service,
 * where one owner ran every migration), as `ALTER ... OWNER TO` statements: the service's own
 * migrations must be able to alter them. Sequences of identity and serial columns follow their
 * table. Run as a query; each row is one statement.
 */
export const FOREIGN_OWNED_OBJECTS = `
  SELECT format('ALTER %s %s OWNER TO %I',
           CASE c.relkind WHEN 'v' THEN 'VIEW' WHEN 'm' THEN 'MATERIALIZED VIEW' WHEN 'S' THEN 'SEQUENCE'
                          WHEN 'f' THEN 'FOREIGN TABLE' ELSE 'TABLE' END,
           c.oid::regclass, $2::text) AS statement
    FROM pg_class c
   WHERE c.relnamespace = $1::regnamespace AND c.relowner <> $2::regrole
     AND c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f')
     AND NOT (c.relkind = 'S' AND EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_class'::regclass
                                          AND d.objid = c.oid AND d.deptype IN ('a', 'i')))
  UNION ALL
  SELECT format('ALTER ROUTINE %s OWNER TO %I', p.oid::regprocedure, $2::text)
    FROM pg_proc p WHERE p.pronamespace = $1::regnamespace AND p.proowner <> $2::regrole
  UNION ALL
  SELECT format('ALTER %s %s OWNER TO %I', CASE t.typtype WHEN 'd' THEN 'DOMAIN' ELSE 'TYPE' END, t.oid::regtype, $2::text)
    FROM pg_type t
   WHERE t.typnamespace = $1::regnamespace AND t.typowner <> $2::regrole AND t.typtype IN ('c', 'd', 'e', 'r', 'm')
     AND (t.typtype <> 'c' OR EXISTS (SELECT 1 FROM pg_class c WHERE c.oid = t.typrelid AND c.relkind = 'c'))
     AND NOT (t.typtype = 'm' AND EXISTS (SELECT 1 FROM pg_range r WHERE r.rngmultitypid = t.oid))`;
