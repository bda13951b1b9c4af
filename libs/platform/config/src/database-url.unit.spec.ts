import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'pg-connection-string';
import { withLibpqSslModes } from './database-url';

// What node-postgres makes of the URL (its TLS options), after withLibpqSslModes.
const ca = join(tmpdir(), `database-url-unit-${process.pid}.crt`);
writeFileSync(ca, 'not read as a certificate here');
const tls = (query: string): unknown => {
  const ssl = parse(withLibpqSslModes(`postgres://u:p@db.example:5432/seed${query}`)).ssl;
  if (typeof ssl !== 'object' || ssl === null) return ssl;
  const { rejectUnauthorized, checkServerIdentity, ca: givenCa } = ssl as { rejectUnauthorized?: boolean; checkServerIdentity?: unknown; ca?: string };
  // Node checks the name only when it checks the chain (rejectUnauthorized).
  const checks = rejectUnauthorized === false ? 'nothing' : checkServerIdentity === undefined ? 'chain and name' : 'chain';
  return { checks, ca: givenCa === undefined ? 'default' : 'sslrootcert' };
};
afterAll(() => rmSync(ca, { force: true }));

describe('withLibpqSslModes', () => {
  it('leaves a URL without sslmode as it is: no TLS', () => {
    expect(withLibpqSslModes('postgres://u:p@db:5432/seed')).toBe('postgres://u:p@db:5432/seed');
    expect(tls('')).toBeUndefined();
  });

  it('gives each sslmode what libpq checks', () => {
    expect(tls('?sslmode=disable')).toBe(false);
    expect(tls('?sslmode=prefer')).toEqual({ checks: 'nothing', ca: 'default' });
    expect(tls('?sslmode=require')).toEqual({ checks: 'nothing', ca: 'default' });
    // libpq: require with a root certificate checks the chain, as verify-ca does.
    expect(tls(`?sslmode=require&sslrootcert=${ca}`)).toEqual({ checks: 'chain', ca: 'sslrootcert' });
    expect(tls(`?sslmode=verify-ca&sslrootcert=${ca}`)).toEqual({ checks: 'chain', ca: 'sslrootcert' });
    expect(tls(`?sslmode=verify-full&sslrootcert=${ca}`)).toEqual({ checks: 'chain and name', ca: 'sslrootcert' });
    expect(tls('?sslmode=verify-full')).toEqual({ checks: 'chain and name', ca: 'default' });
    expect(tls('?sslmode=verify-full&sslrootcert=system')).toEqual({ checks: 'chain and name', ca: 'default' });
  });

  it('refuses what node-postgres cannot do as libpq does', () => {
    expect(() => withLibpqSslModes('postgres://u@db/seed?sslmode=allow')).toThrow('sslmode=allow is not supported');
    expect(() => withLibpqSslModes('postgres://u@db/seed?sslmode=no-verify')).toThrow('not supported');
    expect(() => withLibpqSslModes('postgres://u@db/seed?sslmode=require&sslrootcert=system')).toThrow('needs sslmode=verify-full');
    // verify-ca without a CA of its own would trust any certificate a public CA signed for anyone.
    expect(() => tls('?sslmode=verify-ca')).toThrow('sslrootcert');
  });

  it('keeps an explicit uselibpqcompat and the rest of the URL', () => {
    expect(withLibpqSslModes('postgres://u@db/seed?sslmode=require&uselibpqcompat=false')).toBe('postgres://u@db/seed?sslmode=require&uselibpqcompat=false');
    expect(withLibpqSslModes('postgres://u:p%40ss@db:5/seed?sslmode=require&application_name=x')).toBe('postgres://u:p%40ss@db:5/seed?sslmode=require&application_name=x&uselibpqcompat=true');
  });
});
