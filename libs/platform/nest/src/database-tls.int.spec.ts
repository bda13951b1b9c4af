// A service's PostgreSQL connections (PlatformModule's pool, as configured from DATABASE_URL) with
// libpq's sslmode: verify-full against the CA of tools/infra/infra.sh's cluster connects over TLS,
// another CA is refused. docs/security.md ("PostgreSQL") lists what each mode checks.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { DataSource } from 'typeorm';
import { loadConfig, PlatformConfig, withLibpqSslModes } from '@seed/platform-config';
import { requireEnv } from '@seed/platform-testing';
import { databasePoolOptions } from './platform.module';

const adminUrl = requireEnv('DATABASE_URL');
const scratch = mkdtempSync(join(tmpdir(), 'database-tls-'));
let localCa = '';
const otherCa = join(scratch, 'other-ca.crt');

/** DATABASE_URL with the given query, on 127.0.0.1 (a name the local server's certificate holds). */
const urlWith = (query: string): string => {
  const url = new URL(adminUrl);
  url.search = query;
  return url.toString();
};

/** Connects as a service does (TypeORM over node-postgres, the pool options of PlatformModule). */
async function tlsOfServiceConnection(databaseUrl: string): Promise<boolean> {
  const config = loadConfig(PlatformConfig, { DATABASE_URL: databaseUrl, KAFKA_BROKERS: 'unused:9092' });
  const ds = new DataSource({ type: 'postgres', url: withLibpqSslModes(config.DATABASE_URL), extra: { ...databasePoolOptions(config), max: 1 } });
  await ds.initialize();
  try {
    const rows = (await ds.query('SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()')) as { ssl: boolean }[];
    return rows[0]?.ssl ?? false;
  } finally {
    await ds.destroy();
  }
}

beforeAll(async () => {
  // The server's certificate sits beside the CA that signed it (infra.sh's ensure_pg_tls).
  const ds = await new DataSource({ type: 'postgres', url: adminUrl, extra: { max: 1 } }).initialize();
  try {
    const [ssl] = (await ds.query('SHOW ssl')) as { ssl: string }[];
    if (ssl?.ssl !== 'on') throw new Error('the PostgreSQL of DATABASE_URL serves no TLS (bash tools/infra/infra.sh up turns it on)');
    const [cert] = (await ds.query('SHOW ssl_cert_file')) as { ssl_cert_file: string }[];
    localCa = join(dirname(cert?.ssl_cert_file ?? ''), 'ca.crt');
  } finally {
    await ds.destroy();
  }
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=another CA', '-keyout', join(scratch, 'other-ca.key'), '-out', otherCa], { stdio: 'ignore' });
});

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("a service's database connection", () => {
  it('is TLS with sslmode=verify-full and the local CA', async () => {
    expect(await tlsOfServiceConnection(urlWith(`sslmode=verify-full&sslrootcert=${localCa}`))).toBe(true);
    expect(await tlsOfServiceConnection(urlWith(`sslmode=verify-ca&sslrootcert=${localCa}`))).toBe(true);
  });

  it('is refused when another CA signed the server certificate', async () => {
    await expect(tlsOfServiceConnection(urlWith(`sslmode=verify-full&sslrootcert=${otherCa}`))).rejects.toThrow(/certificate/);
    // As in libpq, require with a root certificate checks the chain.
    await expect(tlsOfServiceConnection(urlWith(`sslmode=require&sslrootcert=${otherCa}`))).rejects.toThrow(/certificate/);
  });

  it('is TLS without checks under require, and plain under disable or without sslmode', async () => {
    expect(await tlsOfServiceConnection(urlWith('sslmode=require'))).toBe(true);
    expect(await tlsOfServiceConnection(urlWith('sslmode=disable'))).toBe(false);
    expect(await tlsOfServiceConnection(urlWith(''))).toBe(false);
  });
});
