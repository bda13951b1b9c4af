// `npm run bench:e2e`: the delivery path as a customer sees it, side by side with Kannel.
// One run sends BENCH_MESSAGES (10,000) personalised messages and ends when the customer's
// endpoint (a local receiver) has the last `delivered` callback:
//   platform  one POST /sms/v1/{sub}/many through the running `npm start` stack, every message with a
//             dlrCallbackUrl to the receiver; the stack's SMSC simulator (defaults: window 100,
//             receipt 200 ms after the submit) is the carrier.
//   kannel    Debian's Kannel 1.4 (bearerbox + smsbox, installed when missing): one sendsms request
//             a message (its HTTP API has no batch), BENCH_KANNEL_CONCURRENCY (100) at a time, each with a
//             dlr-url to the same receiver; a second instance of the same simulator, with the same
//             defaults, is its carrier (receipts go round robin over sessions of one system_id, so the
//             two gateways cannot share one simulator without taking each other's receipts).
// Both ask for the same callbacks: every status change. The platform always posts `sent` and
// `delivered`; Kannel gets dlr-mask 9 (SMSC accepted + delivered) unless KANNEL_DLR_MASK says otherwise.
// The runs alternate (platform, kannel, kannel, platform, ...) because the machine is noisy; the
// script prints each run, both medians and their ratio, and writes its result (tools/bench/README.md). BENCH_PEER=none measures the platform alone.
// A platform run also reports when its last `delivered` change happened and each change's time to
// its webhook (the webhooks carry the change's timestamp): where the time after the carrier goes.
// Each run starts with its carrier's message store emptied (the simulator keeps up to 100,000
// messages for inspection): the stack's simulator outlives the bench, the peer's does not, and a
// full store made the stack's carrier costlier than a fresh one (docs/adr/0041-e2e-bench-conditions.md).
// Two carriers (BENCH_FAILOVER, on unless 0): the bench starts a second simulator for the platform and
// registers it as carrier `bench-b` (no route: the implicit catch-all tries `default` first, so the
// platform runs above still send to `default` alone). After each platform run, a `platform-failover`
// run sends the same batch and, once a third of it reached `default`, drops every session of
// `default` and refuses its binds for BENCH_FAILOVER_DOWN_MS (3000): the messages on the wire and
// the rest of the batch move to `bench-b`; the receipts `default` still owes arrive once it is back.
// It reports that run's rate against the single-carrier run of the same invocation, and the time
// from the drop to the first message at `bench-b`.
// Settings: BENCH_MESSAGES, BENCH_RUNS (3 pairs), BENCH_WARMUP (BENCH_MESSAGES, both gateways, not reported),
// BENCH_PEER (kannel|none), KANNEL_DLR_MASK, BENCH_KANNEL_CONCURRENCY, MESSAGING_URL, ADMIN_URL, ADMIN_TOKEN,
// SMSC_HTTP_URL (the stack simulator's inspection API, http://127.0.0.1:2776).
import type { ChildProcess } from 'node:child_process';
import { readFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { measuredProcesses, type MeasuredProcess } from '@seed/platform-testing';
import { cpuSecondsOf, cpuSecondsOfPids, json, percentile } from './bench-support';
import { CARRIER_PROCESS, comparison, summariseSide } from './e2e-summary';
import { alternation, runOf, startBenchmark } from './runner';
import type { KannelPeer } from './kannel-peer';
import { startWebhookReceiver, type Callback, type WebhookReceiver } from './webhook-receiver';
import { addSecondCarrier, dropCarrierWhenAt, removeSecondCarrier, startBenchSimulator, storedAt, untilBound, type SecondCarrier } from './second-carrier';

const root = join(__dirname, '../../..');
const admin = () => ({ adminUrl, adminToken });
const env = process.env;
const total = Number(env['BENCH_MESSAGES'] ?? 10_000);
const runs = Number(env['BENCH_RUNS'] ?? 3);
// One run's worth by default: with a smaller one the first measured run was the platform's first
// large batch and ran slower (code paths of large batches still unoptimised by V8, more GC), which
// is start-up, not the steady state the comparison is about (docs/adr/0041-e2e-bench-conditions.md).
const warmup = Number(env['BENCH_WARMUP'] ?? total);
const peer = env['BENCH_PEER'] ?? 'kannel';
const dlrMask = env['KANNEL_DLR_MASK'] ?? '9';
const kannelConcurrency = Number(env['BENCH_KANNEL_CONCURRENCY'] ?? 100);
const messagingUrl = env['MESSAGING_URL'] ?? 'http://127.0.0.1:3000';
const adminUrl = env['ADMIN_URL'] ?? 'http://127.0.0.1:3002';
const smscHttpUrl = env['SMSC_HTTP_URL'] ?? 'http://127.0.0.1:2776';
const failover = env['BENCH_FAILOVER'] !== '0';
const failoverDownMs = Number(env['BENCH_FAILOVER_DOWN_MS'] ?? 3000);
const adminToken = env['ADMIN_TOKEN'] ?? readFileSync(join(root, '.local/admin-token'), 'utf8').trim();
// Every process of the stack on the delivery path, and its carrier (counted apart in the summary),
// in the order the results list them; how to find each one is tools/stack/processes.json's.
const PLATFORM = measuredProcesses('api-gateway', 'sms-batch', 'webhook-dispatcher', 'kafka', 'postgres', CARRIER_PROCESS);
const CARRIER = measuredProcesses(CARRIER_PROCESS);

interface RunResult {
  gateway: 'platform' | 'kannel' | 'platform-failover';
  messages: number;
  /** From the first request to the last `delivered` callback at the receiver. */
  seconds: number;
  messagesPerSecond: number;
  /** Until the gateway had taken every message (the platform's one POST; Kannel's last sendsms answer). */
  acceptedAfterMs: number;
  callbacks: Record<string, number>;
  /** From the request to each message's `delivered` callback. */
  deliveredLatencyMs: { p50: number; p99: number };
  /**
   * The platform's only (its webhooks carry when the change happened): from the request to the last
   * `delivered` change (its receipt recorded), and from each change to its webhook's arrival: where
   * the time after the carrier goes.
   */
  lastDeliveredChangeMs?: number;
  changeToWebhookMs?: { p50: number; p99: number };
  cpuSeconds: Record<string, number>;
  /** platform-failover: from dropping `default`'s sessions to the first message at `bench-b`. */
  firstReroutedAfterMs?: number;
  /** platform-failover: messages each carrier took. */
  carriers?: { default: number; 'bench-b': number };
}

/** Resolves when `expected` callbacks of `run` said delivered (or rejects after a silence of 60 s). */
function collect(receiver: WebhookReceiver, run: string, expected: number): { done: Promise<void>; callbacks: Callback[] } {
  const callbacks: Callback[] = [];
  let delivered = 0;
  let resolve: () => void = () => undefined;
  const done = new Promise<void>((r) => (resolve = r));
  receiver.onCallback = (c) => {
    if (c.run !== run) return;
    callbacks.push(c);
    if (c.state === 'delivered' && ++delivered === expected) resolve();
  };
  let seen = 0;
  const watchdog = new Promise<void>((_, reject) => {
    const timer = setInterval(() => {
      if (delivered >= expected) clearInterval(timer);
      else if (callbacks.length === seen) {
        clearInterval(timer);
        reject(new Error(`${run}: ${delivered} of ${expected} delivered callbacks, none new for 60 s`));
      } else seen = callbacks.length;
    }, 60_000);
  });
  return { done: Promise.race([done, watchdog]), callbacks };
}

function summarise(gateway: RunResult['gateway'], count: number, started: number, acceptedAt: number, callbacks: Callback[], cpuSeconds: Record<string, number>): RunResult {
  const delivered = callbacks.filter((c) => c.state === 'delivered').map((c) => c.at - started);
  const last = Math.max(...delivered);
  const byState: Record<string, number> = {};
  for (const c of callbacks) byState[c.state] = (byState[c.state] ?? 0) + 1;
  return {
    gateway,
    messages: count,
    seconds: Number((last / 1000).toFixed(2)),
    messagesPerSecond: Math.round(count / (last / 1000)),
    acceptedAfterMs: Math.round(acceptedAt - started),
    callbacks: byState,
    deliveredLatencyMs: { p50: percentile(delivered, 50), p99: percentile(delivered, 99) },
    ...stagesOf(callbacks, started),
    cpuSeconds,
  };
}

function stagesOf(callbacks: readonly Callback[], started: number): Pick<RunResult, 'lastDeliveredChangeMs' | 'changeToWebhookMs'> {
  const timed = callbacks.filter((c) => Number.isFinite(c.eventAt));
  if (timed.length === 0) return {};
  const lags = timed.map((c) => c.at - c.eventAt);
  const lastChange = Math.max(...timed.filter((c) => c.state === 'delivered').map((c) => c.eventAt));
  return { lastDeliveredChangeMs: Math.round(lastChange - started), changeToWebhookMs: { p50: percentile(lags, 50), p99: percentile(lags, 99) } };
}

/** CPU seconds each process used from now until the function returned is called. */
function cpuOf(stackProcesses: readonly MeasuredProcess[], pids: () => Record<string, number | undefined> = () => ({})): () => Record<string, number> {
  const read = (): Record<string, number> => ({
    ...Object.fromEntries(stackProcesses.map((p) => [p.name, cpuSecondsOf(p.commandLine)])),
    ...Object.fromEntries(Object.entries(pids()).map(([name, pid]) => [name, pid === undefined ? 0 : cpuSecondsOfPids([pid])])),
  });
  const before = read();
  return () => Object.fromEntries(Object.entries(read()).map(([k, v]) => [k, Number((v - (before[k] ?? 0)).toFixed(1))]));
}

/** Empties a simulator's message store, so that every run starts with its carrier in the same state. */
async function clearCarrier(inspectionUrl: string): Promise<void> {
  const res = await fetch(`${inspectionUrl}/messages`, { method: 'DELETE' });
  if (!res.ok) throw new Error(`DELETE ${inspectionUrl}/messages answered ${res.status}`);
}

async function runPlatform(receiver: WebhookReceiver, apiKey: string, subAccountId: string, count: number, label: string, second?: SecondCarrier): Promise<RunResult> {
  await clearCarrier(smscHttpUrl);
  if (second) await clearCarrier(second.inspectionUrl);
  const { done, callbacks } = collect(receiver, label, count);
  const messages = Array.from({ length: count }, (_, i) => ({
    destination: `+447700${String(100_000 + i).padStart(6, '0')}`,
    text: `Hello customer ${i}, your parcel arrives today.`,
    clientMessageId: `m${i}`,
    dlrCallbackUrl: `http://127.0.0.1:${receiver.port}/${label}/dlr`,
  }));
  const cpu = cpuOf(PLATFORM);
  const started = Date.now();
  const batch = await json<{ acceptedCount: number }>(`${messagingUrl}/sms/v1/${subAccountId}/many`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ template: { source: 'BENCH' }, messages }),
  });
  const acceptedAt = Date.now();
  if (batch.acceptedCount !== count) throw new Error(`the platform accepted ${batch.acceptedCount} of ${count}`);
  if (!second) {
    await done;
    return summarise('platform', count, started, acceptedAt, callbacks, cpu());
  }
  const droppedAt = await dropCarrierWhenAt(smscHttpUrl, Math.floor(count / 3), failoverDownMs);
  await done;
  const atB = await storedAt(second.inspectionUrl);
  const firstAtB = Math.min(...atB.map((m) => Date.parse(m.receivedAt)));
  return {
    ...summarise('platform-failover', count, started, acceptedAt, callbacks, cpu()),
    firstReroutedAfterMs: Math.round(firstAtB - droppedAt),
    carriers: { default: (await storedAt(smscHttpUrl)).length, 'bench-b': atB.length },
  };
}

async function runKannel(receiver: WebhookReceiver, kannel: KannelPeer, carrierUrl: string, count: number, label: string): Promise<RunResult> {
  await clearCarrier(carrierUrl);
  const { done, callbacks } = collect(receiver, label, count);
  const cpu = cpuOf(CARRIER, () => kannel.processes());
  const started = Date.now();
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      await kannel.send(i, `447700${String(100_000 + i).padStart(6, '0')}`, `Hello customer ${i}, your parcel arrives today.`, `http://127.0.0.1:${receiver.port}/${label}/dlr?i=${i}&type=%d`);
    }
  };
  await Promise.all(Array.from({ length: kannelConcurrency }, worker));
  const acceptedAt = Date.now();
  await done;
  return summarise('kannel', count, started, acceptedAt, callbacks, cpu());
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;

/** The run in the common result shape: its side, figures and CPU by process. */
const asRun = ({ gateway, cpuSeconds, ...rest }: RunResult, label: string) => runOf(rest as Record<string, unknown>, { side: gateway, label, cpuSeconds });

async function main(): Promise<void> {
  const bench = startBenchmark(peer === 'kannel' ? 'e2e' : 'e2e-platform', 'npm run bench:e2e', {
    messages: total,
    runs,
    warmup,
    peer,
    ...(peer === 'kannel' ? { kannelDlrMask: dlrMask, kannelConcurrency } : {}),
    failover,
    ...(failover ? { failoverDownMs } : {}),
  });
  const receiver = await startWebhookReceiver();
  const accountId = `e2e${Date.now().toString(36)}`;
  const account = await json<{ apiKey: string; subAccountIds: string[] }>(`${adminUrl}/admin/v1/accounts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ accountId }),
  });
  const subAccountId = account.subAccountIds[0] as string;
  let simulator: ChildProcess | undefined;
  let peerCarrierUrl = '';
  let kannel: KannelPeer | undefined;
  let second: SecondCarrier | undefined;
  try {
    if (failover) second = await addSecondCarrier(root, admin(), Number(env['SMPP_WINDOW'] ?? 100));
    if (peer === 'kannel') {
      const sim = await startBenchSimulator(root);
      simulator = sim.child;
      peerCarrierUrl = sim.inspectionUrl;
      const { startKannel } = await import('./kannel-peer');
      kannel = await startKannel({ smscHost: '127.0.0.1', smscPort: sim.port, systemId: 'seed', password: 'secret', workDir: mkdtempSync(join(tmpdir(), 'seed-kannel-')), dlrMask, window: Number(env['SMPP_WINDOW'] ?? 100) });
    }
    // Warm-ups: the first batch after a start pays for JIT compilation and connection set-up.
    if (warmup > 0) {
      await runPlatform(receiver, account.apiKey, subAccountId, warmup, 'platform-warmup');
      if (kannel) await runKannel(receiver, kannel, peerCarrierUrl, warmup, 'kannel-warmup');
    }
    const results: RunResult[] = [];
    for (let i = 1; i <= runs; i++) {
      for (const gateway of alternation(i, ['platform', 'kannel'])) {
        if (gateway === 'kannel' && !kannel) continue;
        const result = gateway === 'platform' ? await runPlatform(receiver, account.apiKey, subAccountId, total, `platform-${i}`) : await runKannel(receiver, kannel as KannelPeer, peerCarrierUrl, total, `kannel-${i}`);
        bench.run(asRun(result, `${gateway}-${i}`));
        results.push(result);
      }
      if (second) {
        const result = await runPlatform(receiver, account.apiKey, subAccountId, total, `platform-failover-${i}`, second);
        bench.run(asRun(result, `platform-failover-${i}`));
        results.push(result);
        await untilBound(smscHttpUrl);
      }
    }
    const rates = (g: string) => results.filter((r) => r.gateway === g).map((r) => r.messagesPerSecond);
    const platformMedian = median(rates('platform'));
    const platform = summariseSide(results.filter((r) => r.gateway === 'platform'));
    const kannelSide = kannel ? summariseSide(results.filter((r) => r.gateway === 'kannel')) : undefined;
    const failoverRuns = results.filter((r) => r.gateway === 'platform-failover');
    const failoverSummary =
      failoverRuns.length > 0
        ? {
            failover: {
              medianMessagesPerSecond: median(rates('platform-failover')),
              rates: rates('platform-failover'),
              againstSingleCarrier: Number((median(rates('platform-failover')) / platformMedian).toFixed(2)),
              firstReroutedAfterMs: failoverRuns.map((r) => r.firstReroutedAfterMs),
              downMs: failoverDownMs,
            },
          }
        : {};
    // Per 10,000 messages, the carrier simulator apart (tools/bench/e2e-summary.ts), and the ratios.
    bench.finish({
      platform: { ...platform, rates: rates('platform') },
      ...failoverSummary,
      ...(kannelSide ? { kannel: { ...kannelSide, rates: rates('kannel'), dlrMask }, ...comparison(platform, kannelSide) } : {}),
    });
  } finally {
    await kannel?.stop();
    if (second) await removeSecondCarrier(admin(), second);
    simulator?.kill('SIGTERM');
    await receiver.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
