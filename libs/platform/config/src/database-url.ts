import { ConfigError } from './load-config';

const SSL_MODES = ['disable', 'prefer', 'require', 'verify-ca', 'verify-full'] as const;

/**
 * DATABASE_URL's `sslmode` as libpq means it (docs/security.md, "PostgreSQL"), for node-postgres.
 * Since pg-connection-string 2.7, node-postgres takes prefer, require and verify-ca as verify-full
 * unless the URL asks for libpq's meaning with `uselibpqcompat=true`; this adds it. Modes libpq
 * has and node-postgres cannot follow are refused at start rather than quietly made stricter or
 * weaker: `allow` (try without TLS first), and `sslrootcert=system` with less than verify-full,
 * which libpq refuses too. `sslrootcert=system` itself means Node's bundled CAs (plus
 * NODE_EXTRA_CA_CERTS). A URL without `sslmode` connects without TLS, as node-postgres does.
 */
export function withLibpqSslModes(databaseUrl: string): string {
  // No URL yet (a module built for its metadata, before configuration): nothing to translate.
  if (!URL.canParse(databaseUrl)) return databaseUrl;
  const url = new URL(databaseUrl);
  const mode = url.searchParams.get('sslmode');
  if (mode === null || url.searchParams.has('uselibpqcompat')) return databaseUrl;
  if (!(SSL_MODES as readonly string[]).includes(mode)) {
    throw new ConfigError(`DATABASE_URL: sslmode=${mode} is not supported; use one of ${SSL_MODES.join(', ')}`);
  }
  if (url.searchParams.get('sslrootcert') === 'system') {
    if (mode !== 'verify-full') throw new ConfigError(`DATABASE_URL: sslrootcert=system needs sslmode=verify-full (libpq refuses ${mode} with it too)`);
    url.searchParams.delete('sslrootcert');
  }
  url.searchParams.set('uselibpqcompat', 'true');
  return url.toString();
}
