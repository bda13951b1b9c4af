// Debian's Kannel (bearerbox + smsbox) as a peer to benchmark against: the same SMSC simulator,
// the same "HTTP in, SMPP out, delivery receipt back as an HTTP callback" path, a known gateway.
// Configured as an operator tuning it for throughput would (kannelConf): the platform's SMPP window,
// errors-only logs, no access log, its delivery-receipt store in memory.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { Agent, get } from 'node:http';
import { type AddressInfo, connect, createServer, type Server } from 'node:net';
import { join } from 'node:path';

export interface KannelPeer {
  /** Sends one SMS through smsbox's sendsms with a dlr-url pointing at `dlrUrl(i)`; resolves when smsbox answered 202/accepted. */
  send(i: number, destination: string, text: string, dlrUrl: string): Promise<void>;
  stop(): Promise<void>;
  /** Its two processes' pids, for CPU accounting. */
  processes(): { bearerbox?: number; smsbox?: number };
}

const BEARERBOX = '/usr/sbin/bearerbox';
const SMSBOX = '/usr/sbin/smsbox';
const POLICY_RC_D = '/usr/sbin/policy-rc.d';
const USER = 'bench';
const PASSWORD = 'bench';

/**
 * Installs Debian's `kannel` package when /usr/sbin/bearerbox is missing (apt-get update once, then
 * apt-get install -y kannel; DEBIAN_FRONTEND=noninteractive), writes a config into a temp dir,
 * starts bearerbox then smsbox as child processes, waits until both are ready (bearerbox admin
 * port /status answers, smsbox sendsms port accepts), and returns.
 */
export async function startKannel(opts: {
  smscHost: string;
  smscPort: number;
  systemId: string;
  password: string;
  workDir: string;
  /** sendsms dlr-mask: 1 (default) = final "delivered" only; 9 adds the SMSC's "accepted" (8). */
  dlrMask?: string | number;
  /** submit_sm in flight on the bind (max-pending-submits): the platform's SMPP_WINDOW, so both get the same window. */
  window: number;
}): Promise<KannelPeer> {
  installKannel();
  mkdirSync(opts.workDir, { recursive: true });
  const [adminPort, smsboxPort, sendsmsPort] = (await freePorts(3)) as [number, number, number];
  const conf = join(opts.workDir, 'kannel.conf');
  writeFileSync(conf, kannelConf({ ...opts, adminPort, smsboxPort, sendsmsPort }));

  const children: ChildProcess[] = [];
  // A benchmark that crashes must not leave a Kannel bound to the simulator behind.
  const killAll = (): void => children.forEach((child) => child.exitCode === null && child.kill('SIGKILL'));
  process.once('exit', killAll);
  try {
    children.push(startBox(BEARERBOX, conf, opts.workDir));
    await waitFor('bearerbox admin /status', children, async () => (await httpStatus(`http://127.0.0.1:${adminPort}/status.txt?password=${PASSWORD}`)).code === 200);
    children.push(startBox(SMSBOX, conf, opts.workDir));
    await waitFor('smsbox sendsms port', children, () => accepts(sendsmsPort));
    // Beyond "both are up": messages sent before the bind only queue in bearerbox and the first
    // seconds of a run would measure the bind. The admin status shows "online" once bound.
    await waitFor('SMSC bind (status "online")', children, async () => /\bonline\b/.test((await httpStatus(`http://127.0.0.1:${adminPort}/status.txt?password=${PASSWORD}`)).body));
  } catch (error) {
    killAll();
    process.removeListener('exit', killAll);
    throw error;
  }
  const [bearerbox, smsbox] = children as [ChildProcess, ChildProcess];

  // The caller bounds concurrency; keep-alive so that TCP setup does not count against Kannel.
  const agent = new Agent({ keepAlive: true, maxSockets: 100 });
  const dlrMask = String(opts.dlrMask ?? 1);
  const send = (i: number, path: string, retried: boolean): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      const req = get({ agent, host: '127.0.0.1', port: sendsmsPort, path }, (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
        res.on('end', () => (res.statusCode === 202 ? resolve() : reject(new Error(`sendsms ${i}: ${res.statusCode} ${body.trim()}`))));
      });
      // smsbox closes keep-alive connections after 60 s idle (between benchmark runs); a request that
      // raced such a close never reached it, so sending it once more cannot duplicate the message.
      req.on('error', (error: NodeJS.ErrnoException) => (req.reusedSocket && error.code === 'ECONNRESET' && !retried ? send(i, path, true).then(resolve, reject) : reject(error)));
    });
  return {
    send(i, destination, text, dlrUrl) {
      // %d etc. in dlrUrl travel as %25d and smsbox substitutes them after decoding the query.
      const query = new URLSearchParams({ username: USER, password: PASSWORD, to: destination, from: 'BENCH', text, 'dlr-mask': dlrMask, 'dlr-url': dlrUrl });
      return send(i, `/cgi-bin/sendsms?${query.toString().replace(/\+/g, '%20')}`, false);
    },
    async stop() {
      process.removeListener('exit', killAll);
      agent.destroy();
      await terminate(smsbox); // first, so that it does not reconnect to a dying bearerbox
      await terminate(bearerbox);
    },
    processes: () => ({ bearerbox: bearerbox.pid, smsbox: smsbox.pid }),
  };
}

function installKannel(): void {
  if (existsSync(BEARERBOX)) return;
  // The package's postinst runs `invoke-rc.d kannel start` (a bearerbox + wapbox as a daemon, on
  // port 13000). A policy-rc.d answering 101 ("action forbidden") stops that. Containers often
  // ship one already: it is put back as it was afterwards, else ours is removed.
  const previous = existsSync(POLICY_RC_D) ? readFileSync(POLICY_RC_D) : undefined;
  writeFileSync(POLICY_RC_D, '#!/bin/sh\nexit 101\n', { mode: 0o755 });
  try {
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    for (const args of [['update'], ['install', '-y', 'kannel']]) {
      execFileSync('apt-get', args, { env, stdio: ['ignore', 'ignore', 'inherit'] });
    }
  } finally {
    if (previous) writeFileSync(POLICY_RC_D, previous);
    else unlinkSync(POLICY_RC_D);
  }
}

function kannelConf(o: { smscHost: string; smscPort: number; systemId: string; password: string; workDir: string; window: number; adminPort: number; smsboxPort: number; sendsmsPort: number }): string {
  const q = (value: string | number): string => JSON.stringify(String(value)); // Kannel strings: "..." with \" escapes
  // log-level 3 (errors only) into workDir: Kannel at 0/1 logs several lines per message, which
  // would make the benchmark measure its logging. No access-log, no store (defaults: off).
  return `group = core
admin-port = ${o.adminPort}
admin-password = ${q(PASSWORD)}
admin-allow-ip = "127.0.0.1"
smsbox-port = ${o.smsboxPort}
box-allow-ip = "127.0.0.1"
dlr-storage = internal
log-file = ${q(join(o.workDir, 'bearerbox.log'))}
log-level = 3

group = smsc
smsc = smpp
smsc-id = sim
host = ${q(o.smscHost)}
port = ${o.smscPort}
transceiver-mode = true
# smsc-username is the bind's system_id (Kannel's own "system-id" key is something else)
smsc-username = ${q(o.systemId)}
smsc-password = ${q(o.password)}
system-type = ""
# Kannel's default is 10: the same window as the platform's, as an operator tuning it would set.
max-pending-submits = ${o.window}
# msg-id-type left unset: Kannel then matches receipt to message by the id string as it is, and
# the simulator puts the same hex string in submit_sm_resp and receipted_message_id. 0x03 works
# too. 0x01/0x02 lose the receipts of ids that are all digits (e.g. 12345499): Kannel reads an id
# without a-f in the base the bit names, so the two sides disagree.

group = smsbox
bearerbox-host = 127.0.0.1
sendsms-port = ${o.sendsmsPort}
log-file = ${q(join(o.workDir, 'smsbox.log'))}
log-level = 3

group = sendsms-user
username = ${q(USER)}
password = ${q(PASSWORD)}
`;
}

/** Foreground, as root, console output (panics only: -v 4) into workDir/<box>.out. */
function startBox(binary: string, conf: string, workDir: string): ChildProcess {
  const out = openSync(join(workDir, `${binary.split('/').pop()}.out`), 'a');
  try {
    return spawn(binary, ['-v', '4', conf], { stdio: ['ignore', out, out] });
  } finally {
    closeSync(out); // the child has its own copy
  }
}

/** Polls `ready` every 100 ms for 30 s; fails at once when a box exits (bad config, port taken). */
async function waitFor(what: string, children: ChildProcess[], ready: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const dead = children.find((child) => child.exitCode !== null || child.signalCode !== null);
    if (dead) throw new Error(`kannel: ${dead.spawnfile} exited (${dead.exitCode ?? dead.signalCode}) while waiting for ${what}; see its .log/.out`);
    if (await ready().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`kannel: timed out waiting for ${what}`);
}

function httpStatus(url: string): Promise<{ code: number; body: string }> {
  return new Promise((resolve, reject) => {
    get(url, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ code: res.statusCode ?? 0, body }));
    }).on('error', reject);
  });
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

/** Ports the kernel hands out for port 0, all held open at once so that they differ. */
async function freePorts(count: number): Promise<number[]> {
  const servers: Server[] = [];
  for (let n = 0; n < count; n++) {
    const server = createServer();
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
    servers.push(server);
  }
  const ports = servers.map((server) => (server.address() as AddressInfo).port);
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  return ports;
}

/** SIGTERM (Kannel shuts down cleanly: unbind, flush), SIGKILL after 5 s. */
async function terminate(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}
