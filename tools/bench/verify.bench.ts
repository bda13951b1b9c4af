// `npm run bench:verify`: concurrent Verify v2 flows through the running stack (start it with npm start).
// Each flow: POST /verify/v2/{sub} (generate and send), GET .../{uid}?code=<wrong> (a validation,
// decided and recorded like any other), GET .../{uid} (a read). Flows start at a fixed rate (open
// loop: a slow answer does not slow the arrivals) for a fixed time, spread over sub-accounts so the
// per-sub-account abuse limit is not what is measured. Prints p50/p99 of each call, flows/s, and
// how many of the SMS the carrier (the SMSC simulator) had received at the end, the stack's CPU per
// flow by process (including the SMS each flow sends), and this script's own CPU per flow (it
// shares the machine with the stack).
// Settings: BENCH_RATE (flows/s, default 200), BENCH_SECONDS (20), BENCH_WARMUP_SECONDS (10: after 3 the first
// measured seconds were still slower, V8 optimising the stack's code),
// BENCH_SUB_ACCOUNTS (25), MESSAGING_URL, ADMIN_URL, SMSC_URL, ADMIN_TOKEN (default .local/admin-token).
import { randomInt } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Agent } from 'undici';
import { openLoop, percentile, stackCpuMeter } from './bench-support';
import { runOf, startBenchmark } from './runner';

const root = join(__dirname, '../../..');
const env = process.env;
const rate = Number(env['BENCH_RATE'] ?? 200);
const seconds = Number(env['BENCH_SECONDS'] ?? 20);
const warmupSeconds = Number(env['BENCH_WARMUP_SECONDS'] ?? 10);
const subAccounts = Number(env['BENCH_SUB_ACCOUNTS'] ?? 25);
const messagingUrl = env['MESSAGING_URL'] ?? 'http://127.0.0.1:3000';
const adminUrl = env['ADMIN_URL'] ?? 'http://127.0.0.1:3002';
const smscUrl = env['SMSC_URL'] ?? 'http://127.0.0.1:2776';
const adminToken = env['ADMIN_TOKEN'] ?? readFileSync(join(root, '.local/admin-token'), 'utf8').trim();

type Call = 'generate' | 'validate' | 'read';
interface Timings {
  generate: number[];
  validate: number[];
  read: number[];
  flowsDone: number;
  failures: Map<string, number>;
}

async function admin(path: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${adminUrl}/admin/v1${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (res.status !== 201) throw new Error(`admin ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as Record<string, unknown>;
}

/**
 * The API calls go through undici's `request` on keep-alive connections rather than `fetch`: the
 * load generator shares the two cores with the stack it measures, and `fetch` (WHATWG streams and
 * headers on top of the same client) cost it about twice the CPU per call.
 */
const client = new Agent({ connections: null, keepAliveTimeout: 30_000 });

async function timed(timings: Timings | null, call: Call, path: string, options: { method?: 'GET' | 'POST'; headers: Record<string, string>; body?: string }): Promise<Record<string, unknown> | null> {
  const t0 = performance.now();
  const res = await client.request({ origin: messagingUrl, path, method: options.method ?? 'GET', headers: options.headers, body: options.body ?? null });
  const text = await res.body.text();
  const ms = performance.now() - t0;
  if (res.statusCode !== 200) {
    if (timings) timings.failures.set(`${call} ${res.statusCode}`, (timings.failures.get(`${call} ${res.statusCode}`) ?? 0) + 1);
    return null;
  }
  timings?.[call].push(ms);
  return JSON.parse(text) as Record<string, unknown>;
}

/** UK mobile numbers 07400 xxxxxx (all valid) from a random start, so repeated runs rarely meet a number's limits. */
const firstNumber = randomInt(0, 1_000_000);
const destination = (n: number) => `+447400${String((firstNumber + n) % 1_000_000).padStart(6, '0')}`;

async function flow(n: number, apiKey: string, subAccountId: string, timings: Timings | null): Promise<void> {
  const auth = { authorization: `Bearer ${apiKey}` };
  const base = `/verify/v2/${subAccountId}`;
  const view = await timed(timings, 'generate', base, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ destination: destination(n), brand: 'BENCH' }),
  });
  if (!view) return;
  const uid = String(view['uid']);
  await timed(timings, 'validate', `${base}/${uid}?code=000000`, { headers: auth });
  await timed(timings, 'read', `${base}/${uid}`, { headers: auth });
  if (timings) timings.flowsDone++;
}

/** `rate` flows a second for `durationSeconds`, spread over the sub-accounts. */
const run = (durationSeconds: number, firstFlow: number, key: string, subs: string[], timings: Timings | null): Promise<number> =>
  openLoop(rate, durationSeconds, firstFlow, (n) => flow(n, key, subs[n % subs.length] as string, timings), timings?.failures);

async function smscSubmits(): Promise<number | null> {
  try {
    const res = await fetch(`${smscUrl}/stats`);
    return Number(((await res.json()) as { submits: number }).submits);
  } catch {
    return null;
  }
}

async function main(): Promise<void> {
  if (!existsSync(join(root, '.local')) && !env['ADMIN_TOKEN']) throw new Error('start the stack first: npm start');
  const bench = startBenchmark('verify', 'npm run bench:verify', { rate, seconds, warmupSeconds, subAccounts });
  const accountId = `vbench${Date.now().toString(36)}`;
  const { apiKey } = (await admin('/accounts', { accountId })) as { apiKey: string };
  const subs = [`${accountId}_hq`];
  for (let i = 1; i < subAccounts; i++) {
    await admin(`/accounts/${accountId}/sub-accounts`, { subAccountId: `${accountId}_s${i}` });
    subs.push(`${accountId}_s${i}`);
  }

  console.log(`warm-up: ${warmupSeconds} s at ${rate} flows/s`);
  await run(warmupSeconds, 0, apiKey, subs, null);
  const submitsBefore = await smscSubmits();
  const timings: Timings = { generate: [], validate: [], read: [], flowsDone: 0, failures: new Map() };
  console.log(`measuring: ${seconds} s at ${rate} flows/s over ${subs.length} sub-accounts`);
  const ownCpu0 = process.cpuUsage();
  const stackCpu = stackCpuMeter();
  const elapsed = await run(seconds, Math.round(rate * warmupSeconds), apiKey, subs, timings);
  const ownCpu = process.cpuUsage(ownCpu0);
  const submitsAtEnd = await smscSubmits();
  await new Promise((resolve) => setTimeout(resolve, 5000));
  const submitsAfter5s = await smscSubmits();
  // After the SMS of the last flows went out: their sending is part of a flow's cost.
  const stackCpuMsPerFlow = stackCpu(timings.flowsDone);

  const summary = (call: Call) => ({ count: timings[call].length, p50Ms: percentile(timings[call], 50), p99Ms: percentile(timings[call], 99), maxMs: percentile(timings[call], 100) });
  bench.run(
    runOf(
      {
        flowsCompleted: timings.flowsDone,
        flowsPerSecond: Number((timings.flowsDone / elapsed).toFixed(1)),
        generate: summary('generate'),
        validate: summary('validate'),
        read: summary('read'),
        failures: Object.fromEntries(timings.failures),
        stackCpuMsPerFlow,
        // This load generator's own CPU: on a single machine it competes with the stack it measures.
        benchClientCpuMsPerFlow: Number(((ownCpu.user + ownCpu.system) / 1000 / Math.max(1, timings.flowsDone)).toFixed(2)),
        smsAtCarrier:
          submitsBefore === null
            ? 'SMSC simulator not reachable'
            : { whenLastFlowEnded: (submitsAtEnd ?? 0) - submitsBefore, fiveSecondsLater: (submitsAfter5s ?? 0) - submitsBefore },
      },
      { label: `${seconds} s at ${rate} flows/s` },
    ),
  );
  bench.finish();
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
