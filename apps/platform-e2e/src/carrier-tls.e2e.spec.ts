import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from '@seed/platform-testing';
import { routing } from './support/carriers';
import { sendBatch, ukMobile, type Account } from './support/http';
import { smsc } from './support/smsc';
import { useStack } from './support/stack';

/**
 * A carrier over SMPP with TLS (`smpps://`): the simulator behind a TLS listener with a certificate
 * from a private CA, which sms-batch trusts through NODE_EXTRA_CA_CERTS. A carrier whose name the
 * certificate does not cover is never bound: the certificate is checked, not just the encryption.
 */
const dir = mkdtempSync(join(tmpdir(), 'seed-smpps-'));
const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=Seed test carrier CA');
openssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'smsc.key', '-out', 'smsc.csr', '-subj', '/CN=localhost');
writeFileSync(join(dir, 'san.ext'), 'subjectAltName=DNS:localhost\n');
openssl('x509', '-req', '-in', 'smsc.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'smsc.pem', '-days', '2', '-extfile', 'san.ext');

describe('a carrier over smpps://', () => {
  const ctx = useStack({
    SMSC_TLS_CERT_FILE: join(dir, 'smsc.pem'),
    SMSC_TLS_KEY_FILE: join(dir, 'smsc.key'),
    NODE_EXTRA_CA_CERTS: join(dir, 'ca.pem'),
    CARRIER_TICK_MS: '500',
    SMPP_RECONNECT_MAX_MS: '1000',
  });
  let account: Account;

  beforeAll(async () => {
    account = await ctx.stack.createAccount();
  });

  const slotBound = async (carrierId: string): Promise<boolean> =>
    (await ctx.db.query<{ bound: boolean }>(`SELECT bool_or(bound) AS bound FROM ${ctx.db.table('carrier_bind_slots')} WHERE carrier_id = $1`, [carrierId]))[0]?.bound === true;

  it('binds over TLS to a carrier whose certificate checks out, and delivers through it', async () => {
    const port = Number(ctx.stack.env['SMSC_PORT']);
    const api = routing(ctx.stack);
    await api.putCarrier('secure', { url: `smpps://seed:secret@localhost:${port}`, binds: 1 });
    await api.putRoute('all', { position: 1, match: {}, mode: 'failover', carriers: [{ carrierId: 'secure' }] });
    await eventually(async () => ((await slotBound('secure')) ? true : undefined), 20_000, 200);
    const batch = await sendBatch(ctx.stack, account, { template: { text: 'Over TLS' }, messages: [{ destination: ukMobile(4242) }] });
    await eventually(async () => ((await ctx.db.count('messages', "batch_id = $1 AND state = 'delivered'", [batch.batchId])) === 1 ? true : undefined), 20_000, 200);
    expect(await smsc(ctx.stack.smscUrl).messages(ukMobile(4242))).toHaveLength(1);
  });

  it('never binds to a carrier whose certificate does not name it', async () => {
    const port = Number(ctx.stack.env['SMSC_PORT']);
    // The same listener, reached by an address its certificate (DNS:localhost) does not cover.
    await routing(ctx.stack).putCarrier('mismatch', { url: `smpps://seed:secret@127.0.0.1:${port}`, binds: 1 });
    await new Promise((resolve) => setTimeout(resolve, 4000));
    expect(await slotBound('mismatch')).toBe(false);
    expect(await slotBound('secure')).toBe(true);
  });
});
