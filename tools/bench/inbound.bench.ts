// `npm run bench:inbound`: two-way SMS as a customer sees it, against the running `npm start` stack.
// One run has the stack's SMSC simulator originate BENCH_MESSAGES (10,000) inbound SMS with distinct
// texts to a number assigned to a fresh account's sub-account, and ends when the account's default
// webhook (a local receiver) has the last of them: sms-batch records each (deliver_sm_resp after the
// commit), the webhook-dispatcher posts it. Rate = messages / (last webhook - first originate).
// BENCH_ORIGINATE=bulk (default) originates all of a run in one `POST /inbound` with `count`, sent
// as fast as the SMPP window (SMSC_WINDOW, 100 unanswered per session) allows; `single` posts one
// request a message, BENCH_POST_CONCURRENCY (50) at a time, to measure what that way costs.
// Each run reports when the simulator had every deliver_sm acknowledged (sms-batch's part done),
// redeliveries (none expected), texts posted twice (none expected), the time from sms-batch's
// record to the webhook, and CPU seconds per process; the summary is e2e-summary.ts's (median,
// min, max over BENCH_RUNS runs, the simulator's CPU apart as the carrier's).
// Settings: BENCH_MESSAGES, BENCH_RUNS (3), BENCH_WARMUP (BENCH_MESSAGES, not reported), BENCH_ORIGINATE,
// BENCH_POST_CONCURRENCY, ADMIN_URL, ADMIN_TOKEN, SMSC_HTTP_URL (the stack simulator's inspection API).
// The stack must allow webhooks to 127.0.0.1 (WEBHOOK_ALLOWED_HOSTS, which `npm start` sets by default).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { measuredProcesses, type MeasuredProcess } from '@seed/platform-testing';
import { cpuSecondsOf, json, percentile } from './bench-support';
import { summariseSide } from './e2e-summary';
import { runOf, startBenchmark } from './runner';
import { startWebhookReceiver, type Callback, type WebhookReceiver } from './webhook-receiver';

const root = join(__dirname, '../../..');
const env = process.env;
const total = Number(env['BENCH_MESSAGES'] ?? 10_000);
const runs = Number(env['BENCH_RUNS'] ?? 3);
const warmup = Number(env['BENCH_WARMUP'] ?? total);
const mode = env['BENCH_ORIGINATE'] ?? 'bulk';
const postConcurrency = Number(env['BENCH_POST_CONCURRENCY'] ?? 50);
const adminUrl = env['ADMIN_URL'] ?? 'http://127.0.0.1:3002';
const smscHttpUrl = env['SMSC_HTTP_URL'] ?? 'http://127.0.0.1:2776';
const adminToken = env['ADMIN_TOKEN'] ?? readFileSync(join(root, '.local/admin-token'), 'utf8').trim();
// Every process on the inbound path, the gateway for reference, and the carrier (counted apart), in
// the order the results list them; how to find each one is tools/stack/processes.json's.
const PLATFORM = measuredProcesses('api-gateway', 'sms-batch', 'webhook-dispatcher', 'kafka', 'postgres', 'smsc-simulator');
const HANDSET = '447700900123';

interface InboundRun {
  run: string;
  originate: string;
  messages: number;
  /** From the first originate to the last webhook at the receiver. */
  seconds: number;
  messagesPerSecond: number;
  /** Until the simulator had taken every message (the bulk POST's answer, or the last single POST's). */
  originatedAfterMs: number;
  /** Until the simulator had every deliver_sm of the run acknowledged: sms-batch's share of the time. */
  acknowledgedAfterMs: number;
  redelivered: number;
  /** Texts that reached the receiver more than once. */
  postedTwice: number;
  /** From sms-batch's record (the payload's timestamp) to the webhook's arrival. */
  recordToWebhookMs: { p50: number; p99: number };
  cpuSeconds: Record<string, number>;
}

const admin = <T>(path: string, method: string, body: unknown) =>
  json<T>(`${adminUrl}${path}`, { method, headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
const simulator = <T>(path: string, method = 'GET', body?: unknown) =>
  json<T>(`${smscHttpUrl}${path}`, { method, ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }) });
const stats = () => simulator<{ inboundSent: number; inboundRedelivered: number; inboundQueued: number; inboundAwaitingResponse: number }>('/stats');

/** Resolves when every text of `label` arrived (or rejects after a silence of 60 s). */
function collect(receiver: WebhookReceiver, label: string, expected: number): { done: Promise<void>; callbacks: Callback[]; twice: () => number } {
  const callbacks: Callback[] = [];
  const seen = new Set<string>();
  let resolve: () => void = () => undefined;
  const done = new Promise<void>((r) => (resolve = r));
  receiver.onCallback = (c) => {
    if (!c.ref.startsWith(`${label} `)) return;
    callbacks.push(c);
    seen.add(c.ref);
    if (seen.size === expected) resolve();
  };
  let count = 0;
  const watchdog = new Promise<void>((_, reject) => {
    const timer = setInterval(() => {
      if (seen.size >= expected) clearInterval(timer);
      else if (callbacks.length === count) {
        clearInterval(timer);
        reject(new Error(`${label}: ${seen.size} of ${expected} texts arrived, none new for 60 s`));
      } else count = callbacks.length;
    }, 60_000);
  });
  return { done: Promise.race([done, watchdog]), callbacks, twice: () => callbacks.length - seen.size };
}

/** CPU seconds each process used from now until the function returned is called. */
function cpuOf(processes: readonly MeasuredProcess[]): () => Record<string, number> {
  const read = () => Object.fromEntries(processes.map((p) => [p.name, cpuSecondsOf(p.commandLine)]));
  const before = read();
  return () => Object.fromEntries(Object.entries(read()).map(([k, v]) => [k, Number((v - (before[k] ?? 0)).toFixed(1))]));
}

/** Polls the simulator until the run's deliver_sm are all sent and answered; resolves with that time. */
async function acknowledgedAt(sentBefore: number, count: number): Promise<number> {
  for (;;) {
    const s = await stats();
    if (s.inboundSent - sentBefore >= count && s.inboundQueued === 0 && s.inboundAwaitingResponse === 0) return Date.now();
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function originate(label: string, number: string, count: number): Promise<void> {
  const text = `${label} message `;
  if (mode === 'bulk') {
    await simulator('/inbound', 'POST', { source: HANDSET, destination: number, text: `${text}{i}`, count });
    return;
  }
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = ++next;
      await simulator('/inbound', 'POST', { source: HANDSET, destination: number, text: `${text}${i}` });
    }
  };
  await Promise.all(Array.from({ length: postConcurrency }, worker));
}

async function run(receiver: WebhookReceiver, label: string, number: string, count: number): Promise<InboundRun> {
  await simulator('/inbound', 'DELETE'); // the simulator keeps the last 10,000 for inspection; start each run alike
  const { done, callbacks, twice } = collect(receiver, label, count);
  const before = await stats();
  const cpu = cpuOf(PLATFORM);
  const started = Date.now();
  const acknowledged = acknowledgedAt(before.inboundSent, count);
  await originate(label, number, count);
  const originatedAt = Date.now();
  await done;
  const last = Math.max(...callbacks.map((c) => c.at)) - started;
  const cpuSeconds = cpu();
  const after = await stats();
  const lags = callbacks.map((c) => c.at - c.eventAt);
  return {
    run: label,
    originate: mode,
    messages: count,
    seconds: Number((last / 1000).toFixed(2)),
    messagesPerSecond: Math.round(count / (last / 1000)),
    originatedAfterMs: originatedAt - started,
    acknowledgedAfterMs: (await acknowledged) - started,
    redelivered: after.inboundRedelivered - before.inboundRedelivered,
    postedTwice: twice(),
    recordToWebhookMs: { p50: percentile(lags, 50), p99: percentile(lags, 99) },
    cpuSeconds,
  };
}

async function main(): Promise<void> {
  const bench = startBenchmark(mode === 'bulk' ? 'inbound' : `inbound-${mode}`, 'npm run bench:inbound', {
    messages: total,
    runs,
    warmup,
    originate: mode,
    ...(mode === 'bulk' ? {} : { postConcurrency }),
  });
  const receiver = await startWebhookReceiver();
  try {
    const accountId = `inb${Date.now().toString(36)}`;
    const account = await admin<{ subAccountIds: string[] }>('/admin/v1/accounts', 'POST', { accountId });
    const subAccountId = account.subAccountIds[0] as string;
    // A number of its own, so that no earlier run's assignment or opt-out is in the way.
    const number = `4477009${String(Math.floor(Math.random() * 100_000)).padStart(5, '0')}`;
    await admin(`/admin/v1/numbers/${number}`, 'PUT', { accountId, subAccountId });
    await admin(`/admin/v1/accounts/${accountId}/webhooks`, 'PUT', { dlrCallbackUrl: `http://127.0.0.1:${receiver.port}/inbound-bench` });
    // The first run after a start pays for JIT compilation and connection set-up.
    if (warmup > 0) await run(receiver, 'warmup', number, warmup);
    const results: InboundRun[] = [];
    for (let i = 1; i <= runs; i++) {
      const result = await run(receiver, `inbound-${i}`, number, total);
      const { run: label, cpuSeconds, ...figures } = result;
      bench.run(runOf(figures, { label, cpuSeconds }));
      results.push(result);
    }
    const rates = results.map((r) => r.messagesPerSecond);
    // Per 10,000 messages, the carrier simulator apart (tools/bench/e2e-summary.ts).
    bench.finish({ inbound: { ...summariseSide(results), rates } });
  } finally {
    await receiver.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
