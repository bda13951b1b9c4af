// `npm run bench:agent`: concurrent agent-token flows through the running stack (start it with npm start).
// Each flow: POST /api/v1/tokens with a room and a phone number, POST /api/v1/sessions with the
// auth_token (the first login: the room is joined and the guest-link SMS sent), a second login,
// and the guest page as JSON. Flows start at a fixed rate (open loop) for a fixed time, spread
// over several accounts (one account's guest-link SMS share one sms-batch partition). Prints p50/p99 of each call,
// flows/s, and how many guest-link SMS the carrier (the SMSC simulator) had received at the end:
// exactly one per flow is expected, and the stack's CPU per flow by process (the SMS included).
// Settings: BENCH_RATE (flows/s, default 50), BENCH_SECONDS (20), BENCH_WARMUP_SECONDS (3),
// BENCH_ACCOUNTS (10), AGENT_URL, ADMIN_URL, SMSC_URL, ADMIN_TOKEN (default .local/admin-token).
import { randomInt } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openLoop, percentile, stackCpuMeter } from './bench-support';
import { runOf, startBenchmark } from './runner';

const root = join(__dirname, '../../..');
const env = process.env;
const rate = Number(env['BENCH_RATE'] ?? 50);
const seconds = Number(env['BENCH_SECONDS'] ?? 20);
const warmupSeconds = Number(env['BENCH_WARMUP_SECONDS'] ?? 3);
const accounts = Number(env['BENCH_ACCOUNTS'] ?? 10);
const agentUrl = env['AGENT_URL'] ?? 'http://127.0.0.1:3001';
const adminUrl = env['ADMIN_URL'] ?? 'http://127.0.0.1:3002';
const smscUrl = env['SMSC_URL'] ?? 'http://127.0.0.1:2776';
const adminToken = env['ADMIN_TOKEN'] ?? readFileSync(join(root, '.local/admin-token'), 'utf8').trim();

type Call = 'token' | 'login' | 'again' | 'guest';
const CALLS: Call[] = ['token', 'login', 'again', 'guest'];
interface Timings {
  calls: Record<Call, number[]>;
  flowsDone: number;
  failures: Map<string, number>;
}

async function timed(timings: Timings | null, call: Call, url: string, init: RequestInit): Promise<Record<string, unknown> | null> {
  const t0 = performance.now();
  const res = await fetch(url, init);
  const text = await res.text();
  const ms = performance.now() - t0;
  if (res.status !== 200) {
    if (timings) timings.failures.set(`${call} ${res.status}`, (timings.failures.get(`${call} ${res.status}`) ?? 0) + 1);
    return null;
  }
  timings?.calls[call].push(ms);
  return JSON.parse(text) as Record<string, unknown>;
}

/** UK mobile numbers 07400 xxxxxx from a random start; one per flow, so each SMS can be counted. */
const firstNumber = randomInt(0, 1_000_000);
const phone = (n: number) => `+447400${String((firstNumber + n) % 1_000_000).padStart(6, '0')}`;

async function flow(n: number, apiKey: string, timings: Timings | null): Promise<void> {
  const created = await timed(timings, 'token', `${agentUrl}/api/v1/tokens`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ create_room: true, phone_number: phone(n) }),
  });
  if (!created) return;
  const login = { method: 'POST', headers: { authorization: `Bearer ${String(created['auth_token'])}` } };
  if (!(await timed(timings, 'login', `${agentUrl}/api/v1/sessions`, login))) return;
  if (!(await timed(timings, 'again', `${agentUrl}/api/v1/sessions`, login))) return;
  if (!(await timed(timings, 'guest', String(created['guest_link']), { headers: { accept: 'application/json' } }))) return;
  if (timings) timings.flowsDone++;
}

/** `rate` flows a second for `durationSeconds`, spread over the accounts' keys. */
const run = (durationSeconds: number, firstFlow: number, keys: string[], timings: Timings | null): Promise<number> =>
  openLoop(rate, durationSeconds, firstFlow, (n) => flow(n, keys[n % keys.length] as string, timings), timings?.failures);

/** Guest-link SMS the simulator received for the measured flows' numbers. */
async function smsReceived(first: number, count: number): Promise<number> {
  const res = await fetch(`${smscUrl}/messages?limit=1000000`);
  const { messages } = (await res.json()) as { messages: { destination: string; text: string }[] };
  const wanted = new Set(Array.from({ length: count }, (_, i) => phone(first + i).slice(1)));
  return messages.filter((m) => wanted.has(m.destination) && m.text.includes('/guest/')).length;
}

async function main(): Promise<void> {
  if (!existsSync(join(root, '.local')) && !env['ADMIN_TOKEN']) throw new Error('start the stack first: npm start');
  const bench = startBenchmark('agent', 'npm run bench:agent', { rate, seconds, warmupSeconds, accounts });
  const keys: string[] = [];
  for (let i = 0; i < accounts; i++) {
    const res = await fetch(`${adminUrl}/admin/v1/accounts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ accountId: `abench${Date.now().toString(36)}${i}` }),
    });
    if (res.status !== 201) throw new Error(`account creation failed: ${res.status} ${await res.text()}`);
    keys.push(String(((await res.json()) as { apiKey: string }).apiKey));
  }

  console.log(`warm-up: ${warmupSeconds} s at ${rate} flows/s`);
  const warmupFlows = Math.round(rate * warmupSeconds);
  await run(warmupSeconds, 0, keys, null);
  const timings: Timings = { calls: { token: [], login: [], again: [], guest: [] }, flowsDone: 0, failures: new Map() };
  console.log(`measuring: ${seconds} s at ${rate} flows/s over ${accounts} accounts`);
  const stackCpu = stackCpuMeter();
  const elapsed = await run(seconds, warmupFlows, keys, timings);
  const measured = Math.round(rate * seconds);

  // The SMS leave through sms-batch and the carrier shortly after the logins; wait until they stop coming.
  let received = -1;
  for (let i = 0; i < 60; i++) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const now = await smsReceived(warmupFlows, measured);
    if (now === received) break;
    received = now;
  }
  const stackCpuMsPerFlow = stackCpu(timings.flowsDone);
  const summary = Object.fromEntries(CALLS.map((c) => [c, { p50: percentile(timings.calls[c], 50), p99: percentile(timings.calls[c], 99), n: timings.calls[c].length }]));
  bench.run(
    runOf(
      {
        flowsDone: timings.flowsDone,
        flowsPerSecond: Number((timings.flowsDone / elapsed).toFixed(1)),
        ...Object.fromEntries(Object.entries(summary).map(([call, figures]) => [`ms.${call}`, figures])),
        guestLinkSms: { expected: timings.flowsDone, received },
        stackCpuMsPerFlow,
        failures: Object.fromEntries(timings.failures),
      },
      { label: `${seconds} s at ${rate} flows/s` },
    ),
  );
  bench.finish();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
