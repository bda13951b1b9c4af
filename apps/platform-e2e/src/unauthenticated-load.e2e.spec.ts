import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import type { RunningStack } from '@seed/platform-testing';
import { expectApiError, request, sendBatch, type Account } from './support/http';
import { getMessageRaw } from './support/sms-read';
import { useStack } from './support/stack';

jest.setTimeout(240_000);

/** What an attacker sends: 16 MB, the gateway's default body limit. */
const BODY_BYTES = 16 * 1024 * 1024;
const ATTACKERS = 200;
/** Authenticated reads measured alone and under attack, CONCURRENCY at a time. */
const READS = 900;
const CONCURRENCY = 4;
const ROUNDS = 3;
/**
 * The bar, chosen after measuring on the 2-core development machine shared with other test runs
 * (docs/adr/0043-unauthenticated-work-bounded.md): the attacker's loopback traffic and the gateway
 * share the cores, so the p99 under attack is a multiple of the p99 alone, not within it.
 * The p99 of authenticated reads under attack at most this factor of the baseline plus this slack.
 */
const P99_FACTOR = 3;
const P99_SLACK_MS = 50;

/**
 * Unauthenticated work is bounded: a request without a valid API key is answered before its body is
 * read (the connection then closes), and the agent API's unauthenticated entry points are limited
 * per client address. Measured: 200 clients streaming 16 MB bodies without a valid key, over and
 * over, while an account reads its messages.
 */
describe('unauthenticated load', () => {
  const ctx = useStack();
  let stack: RunningStack;
  let account: Account;
  let umid: string;

  beforeAll(async () => {
    ({ stack } = ctx);
    account = await stack.createAccount();
    const batch = await sendBatch(stack, account, { messages: [{ destination: '+447911000001', text: 'Hello' }], includeMessagesInResponse: true });
    umid = batch.messages?.[0]?.umid as string;
  });

  it('answers a request without a valid key before its body is sent: 401, Connection: close', async () => {
    const url = new URL(`${stack.messagingUrl}/sms/v1/${account.subAccountId}/many`);
    for (const authorization of [undefined, 'Bearer sk_not-a-key', `Bearer ${account.apiKey}x`]) {
      // Headers announce 16 MB; not one byte of it is written until the answer comes.
      const answer = await headersOnly(url, authorization);
      expect(answer.status).toBe(401);
      expect(answer.connection).toBe('close');
      expect(JSON.parse(answer.body)).toMatchObject({ code: 1200 });
    }
    // Another account's sub-account: the guard's 403, also before the body.
    const other = await stack.createAccount();
    const foreign = await headersOnly(url, `Bearer ${other.apiKey}`);
    expect(foreign.status).toBe(403);
    expect(JSON.parse(foreign.body)).toMatchObject({ code: 1001 });
    // A path no route has: 404 without reading the body either.
    const unknown = await headersOnly(new URL(`${stack.messagingUrl}/sms/v1/${account.subAccountId}/nothing-here`), `Bearer ${account.apiKey}`);
    expect(unknown.status).toBe(404);
    expect(unknown.connection).toBe('close');
    // With the key, the body is read and decided as ever.
    expect((await getMessageRaw(stack, account, umid)).status).toBe(200);
  });

  it('limits agent logins and guest page loads per client address: 429, 1600, Retry-After', async () => {
    const logins = [];
    for (let i = 0; i < 25; i++) logins.push(await request(`${stack.agentUrl}/api/v1/sessions`, { token: 'not-a-token' }));
    const statuses = logins.map((r) => r.status);
    // AGENT_LOGIN_BURST (20) refused by the token check, then the address is over its rate.
    expect(statuses.slice(0, 20)).toEqual(Array(20).fill(401));
    expect(statuses.slice(20)).toEqual(Array(5).fill(429));
    const limited = logins[24] as Response;
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    await expectApiError(limited, 429, 1600);

    const pages = [];
    for (let i = 0; i < 62; i++) pages.push(await request(`${stack.agentUrl}/guest/not!a-token`, { method: 'GET', headers: { accept: 'application/json' } }));
    expect(pages.slice(0, 60).map((r) => r.status)).toEqual(Array(60).fill(401));
    await expectApiError(pages[61] as Response, 429, 1600);
    expect(pages[61]?.headers.get('retry-after')).toMatch(/^\d+$/);
  });

  it(`keeps authenticated reads within ${P99_FACTOR}x their p99 + ${P99_SLACK_MS} ms while ${ATTACKERS} clients post 16 MB without a valid key`, async () => {
    const gatewayPid = pidListeningOn(Number(new URL(stack.messagingUrl).port));
    const rssBefore = gatewayPid ? memoryOf(gatewayPid) : undefined;

    const read = () => getMessageRaw(stack, account, umid);
    await measure(read, 100, CONCURRENCY); // warm-up: connections, key cache, JIT
    // Rounds of reads alone then under attack, so that the machine's other load (shared cores)
    // falls on both alike; the p99s are taken over all rounds.
    const alone: number[] = [];
    const attacked: number[] = [];
    const refusals: number[] = [];
    const rounds: string[] = [];
    /** Per round, whether its p99 under attack kept within the bar of its own p99 alone. */
    const roundsWithin: boolean[] = [];
    let failedAlone = 0;
    let failedAttacked = 0;
    const attacks: AttackStats[] = [];
    const attackUrl = new URL(`${stack.messagingUrl}/sms/v1/${account.subAccountId}/many`);
    let rssPeak = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const quiet = await measure(read, READS / ROUNDS, CONCURRENCY);
      alone.push(...quiet.times);
      failedAlone += quiet.failures;
      const attack = startAttack(attackUrl, [undefined, 'Bearer sk_not-a-key', 'random']);
      const sampler = setInterval(() => {
        const m = gatewayPid ? memoryOf(gatewayPid) : undefined;
        if (m) rssPeak = Math.max(rssPeak, m.rssKb);
      }, 100);
      try {
        await new Promise((r) => setTimeout(r, 2_000)); // all 200 streaming
        const loud = await measure(read, READS / ROUNDS, CONCURRENCY);
        attacked.push(...loud.times);
        failedAttacked += loud.failures;
        rounds.push(`  round ${round + 1}: alone p99 ${quiet.p99.toFixed(1)} ms, under attack p99 ${loud.p99.toFixed(1)} ms`);
        roundsWithin.push(loud.p99 <= P99_FACTOR * quiet.p99 + P99_SLACK_MS);
        // How soon the gateway refuses one more, timed from this (unloaded) event loop: headers only.
        for (let i = 0; i < 10; i++) {
          const started = performance.now();
          expect((await headersOnly(attackUrl, 'Bearer sk_not-a-key')).status).toBe(401);
          refusals.push(performance.now() - started);
        }
      } finally {
        clearInterval(sampler);
        attacks.push(await attack.stop());
      }
    }
    const rssAfter = gatewayPid ? memoryOf(gatewayPid) : undefined;
    const baseline = { ...summary(alone), failures: failedAlone };
    const underAttack = { ...summary(attacked), failures: failedAttacked };
    const attackStats = combine(attacks);

    const bound = P99_FACTOR * baseline.p99 + P99_SLACK_MS;
    console.log(
      [
        `authenticated GET of a message, ${READS} alone and ${READS} under attack at ${CONCURRENCY} concurrent, in ${ROUNDS} rounds:`,
        ...rounds,
        `  alone:        p50 ${baseline.p50.toFixed(1)} ms, p99 ${baseline.p99.toFixed(1)} ms, max ${baseline.max.toFixed(1)} ms, non-200 ${baseline.failures}`,
        `  under attack: p50 ${underAttack.p50.toFixed(1)} ms, p99 ${underAttack.p99.toFixed(1)} ms, max ${underAttack.max.toFixed(1)} ms, non-200 ${underAttack.failures} (bound ${bound.toFixed(1)} ms)`,
        `attack: ${ATTACKERS} concurrent clients (niced), each posting 16 MB bodies without a valid key (none, malformed, well-formed unknown) again and again, for ${(attackStats.durationMs / 1000).toFixed(1)} s in all:`,
        `  ${attackStats.answered} answered (${JSON.stringify(attackStats.statuses)}), ${attackStats.resetBeforeAnswer} reset before an answer`,
        `  time to the answer as the attackers saw it (their own busy loop included): p50 ${attackStats.p50.toFixed(1)} ms, p99 ${attackStats.p99.toFixed(1)} ms`,
        `  time to the 401 of ${refusals.length} probes from the measuring loop meanwhile (headers of a 16 MB post, no body): p50 ${quantile(refusals, 0.5).toFixed(1)} ms, max ${Math.max(...refusals).toFixed(1)} ms`,
        `  bytes a client got out before the connection closed: mean ${(attackStats.meanBytesOut / 1024).toFixed(0)} KiB, max ${(attackStats.maxBytesOut / 1024).toFixed(0)} KiB of ${BODY_BYTES / 1024} KiB; none sent whole: ${attackStats.sentWhole === 0}`,
        gatewayPid
          ? `gateway (pid ${gatewayPid}) RSS: before ${kb(rssBefore?.rssKb)}, peak sampled ${kb(rssPeak)}, after ${kb(rssAfter?.rssKb)}; VmHWM before ${kb(rssBefore?.hwmKb)}, after ${kb(rssAfter?.hwmKb)}`
          : 'gateway pid not found: RSS not measured',
      ].join('\n'),
    );

    expect(baseline.failures).toBe(0);
    expect(underAttack.failures).toBe(0);
    // Judged per round, alone and under attack side by side, and by the median round: the cores are
    // shared with the other test file of the run, so one round can be slowed by that file's own
    // load, alone or under attack. A gateway that the attack really slows fails every round.
    expect(roundsWithin.filter(Boolean).length).toBeGreaterThan(ROUNDS / 2);
    // Every unauthenticated post was refused, quickly, and none got its 16 MB in.
    expect(attackStats.answered).toBeGreaterThanOrEqual(ATTACKERS);
    expect(Object.keys(attackStats.statuses)).toEqual(['401']);
    // Quickly: the median probe well under a second, and none near the 5 s a client would wait for a
    // command. One probe of 30 can meet a pause of the other test file's load (1,064 ms once in CI).
    expect(quantile(refusals, 0.5)).toBeLessThan(250);
    expect(Math.max(...refusals)).toBeLessThan(2_000);
    expect(attackStats.sentWhole).toBe(0);
    if (gatewayPid && rssBefore && rssAfter) {
      // 200 bodies of 16 MB read would be 3.2 GB; the peak stays within 256 MB of where it began.
      expect(rssPeak - rssBefore.rssKb).toBeLessThan(256 * 1024);
      expect(rssAfter.hwmKb - rssBefore.rssKb).toBeLessThan(256 * 1024);
    }
  });
});

interface Latencies {
  times: number[];
  p50: number;
  p99: number;
  max: number;
  failures: number;
}

/** `total` calls of `call`, `concurrency` at a time; their latencies and the answers other than 200. */
async function measure(call: () => Promise<Response>, total: number, concurrency: number): Promise<Latencies> {
  const times: number[] = [];
  let failures = 0;
  let next = 0;
  const lane = async () => {
    while (next < total) {
      next++;
      const started = performance.now();
      const res = await call();
      await res.arrayBuffer();
      times.push(performance.now() - started);
      if (res.status !== 200) failures++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  return { ...summary(times), failures };
}

function summary(times: number[]): Latencies {
  return { times, p50: quantile(times, 0.5), p99: quantile(times, 0.99), max: Math.max(...times), failures: 0 };
}

function combine(all: AttackStats[]): AttackStats {
  const sum = (f: (s: AttackStats) => number) => all.reduce((a, s) => a + f(s), 0);
  const statuses: Record<string, number> = {};
  for (const s of all) for (const [k, v] of Object.entries(s.statuses)) statuses[k] = (statuses[k] ?? 0) + v;
  return {
    durationMs: sum((s) => s.durationMs),
    answered: sum((s) => s.answered),
    statuses,
    resetBeforeAnswer: sum((s) => s.resetBeforeAnswer),
    p50: Math.max(...all.map((s) => s.p50)),
    p99: Math.max(...all.map((s) => s.p99)),
    meanBytesOut: sum((s) => s.meanBytesOut * s.answered) / Math.max(1, sum((s) => s.answered)),
    maxBytesOut: Math.max(...all.map((s) => s.maxBytesOut)),
    sentWhole: sum((s) => s.sentWhole),
  };
}

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? NaN;
}

/** Sends only the headers of a 16 MB POST and waits for the answer, never writing the body. */
function headersOnly(url: URL, authorization: string | undefined): Promise<{ status: number; connection: string | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { 'content-type': 'application/json', 'content-length': String(BODY_BYTES) };
    if (authorization) headers['authorization'] = authorization;
    const req = httpRequest({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers, agent: false });
    req.flushHeaders();
    const timer = setTimeout(() => {
      req.destroy();
      reject(new Error(`no answer within 5 s to ${url.pathname} without its body: the gateway waits for the body`));
    }, 5_000);
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => {
        clearTimeout(timer);
        req.destroy();
        resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, body });
      });
    });
    req.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}

interface AttackStats {
  durationMs: number;
  answered: number;
  statuses: Record<string, number>;
  resetBeforeAnswer: number;
  p50: number;
  p99: number;
  meanBytesOut: number;
  maxBytesOut: number;
  sentWhole: number;
}

/**
 * In a child process of its own (`nice -n 19`: on this shared 2-core machine the attacker's CPU,
 * which a real attacker spends on its own machines, should not be what slows the gateway):
 * ATTACKERS loops, each posting a 16 MB body generated on the fly (one 64 KiB chunk written again
 * and again) with one of `authorizations` ('random': a well-formed key never issued, new each
 * time, which costs the gateway a lookup), writing until the connection closes, then again.
 */
function startAttack(url: URL, authorizations: (string | undefined)[]): { stop(): Promise<AttackStats> } {
  const settings = { host: url.hostname, port: Number(url.port), path: url.pathname, clients: ATTACKERS, size: BODY_BYTES, authorizations };
  // The attacker is on the internet, not on the gateway's host: here it shares the two cores, so it
  // runs niced and on the second core only (where the kernel also does most of its loopback TCP
  // work), leaving the first to the gateway's own refusals. Unpinned, its sending competed with
  // the gateway on both cores (docs/adr/0043-unauthenticated-work-bounded.md).
  const child = spawn('taskset', ['-c', '1', 'nice', '-n', '19', process.execPath, '-e', ATTACK_WORKER, JSON.stringify(settings)], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => (out += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  return {
    async stop() {
      child.stdin.end('stop\n');
      const code = await exited;
      if (code !== 0) throw new Error(`attacker exited ${code}: ${out}`);
      return JSON.parse(out) as AttackStats;
    },
  };
}

const ATTACK_WORKER = `
const http = require('node:http');
const { randomBytes } = require('node:crypto');
const { host, port, path, clients, size, authorizations } = JSON.parse(process.argv[1]);
const chunk = Buffer.alloc(64 * 1024, 0x20);
let stopping = false;
const started = Date.now();
const latencies = [];
const statuses = {};
const bytesOut = [];
let resetBeforeAnswer = 0;
let sentWhole = 0;

function post(i) {
  return new Promise((resolve) => {
    const headers = { 'content-type': 'application/json', 'content-length': String(size) };
    const authorization = authorizations[i % authorizations.length];
    if (authorization === 'random') headers.authorization = 'Bearer sk_' + randomBytes(32).toString('base64url');
    else if (authorization) headers.authorization = authorization;
    const begun = process.hrtime.bigint();
    const req = http.request({ host, port, path, method: 'POST', headers, agent: false });
    let written = 0;
    let answered = false;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      if (!answered) resetBeforeAnswer++;
      bytesOut.push(written);
      req.destroy();
      resolve();
    };
    req.on('response', (res) => {
      answered = true;
      latencies.push(Number(process.hrtime.bigint() - begun) / 1e6);
      statuses[res.statusCode] = (statuses[res.statusCode] || 0) + 1;
      res.resume();
      res.on('end', finish);
      res.on('error', finish);
    });
    req.on('error', finish);
    req.on('close', finish);
    const pump = () => {
      while (!done && !req.destroyed && written < size) {
        const n = Math.min(chunk.length, size - written);
        written += n;
        if (!req.write(n === chunk.length ? chunk : chunk.subarray(0, n))) return void req.once('drain', pump);
      }
      if (!done && written >= size) {
        sentWhole++;
        req.end();
      }
    };
    pump();
  });
}

async function loop(i) {
  while (!stopping) await post(i);
}

const loops = Array.from({ length: clients }, (_, i) => loop(i));
process.stdin.on('data', async () => {
  if (stopping) return;
  stopping = true;
  await Promise.all(loops);
  const sorted = latencies.sort((a, b) => a - b);
  const q = (p) => sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] ?? NaN;
  process.stdout.write(JSON.stringify({
    durationMs: Date.now() - started,
    answered: latencies.length,
    statuses,
    resetBeforeAnswer,
    p50: q(0.5),
    p99: q(0.99),
    meanBytesOut: bytesOut.reduce((a, b) => a + b, 0) / Math.max(1, bytesOut.length),
    maxBytesOut: Math.max(0, ...bytesOut),
    sentWhole,
  }), () => process.exit(0));
});
`;

/** The process listening on 127.0.0.1:`port` (Linux /proc), or undefined. */
function pidListeningOn(port: number): number | undefined {
  try {
    const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
    const inodes = new Set<string>();
    for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
      for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
        const cols = line.trim().split(/\s+/);
        if (cols[1]?.endsWith(`:${hexPort}`) && cols[3] === '0A' && cols[9]) inodes.add(cols[9]);
      }
    }
    for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
      let fds: string[];
      try {
        fds = readdirSync(`/proc/${pid}/fd`);
      } catch {
        continue;
      }
      for (const fd of fds) {
        try {
          const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
          if (match && inodes.has(match[1] as string)) return Number(pid);
        } catch {
          // gone meanwhile
        }
      }
    }
  } catch {
    // not Linux
  }
  return undefined;
}

function memoryOf(pid: number): { rssKb: number; hwmKb: number } | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    return { rssKb: field('VmRSS'), hwmKb: field('VmHWM') };
  } catch {
    return undefined;
  }
}

const kb = (value: number | undefined): string => (value === undefined || Number.isNaN(value) ? '?' : `${(value / 1024).toFixed(0)} MB`);
