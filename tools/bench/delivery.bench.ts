// `npm run bench:delivery`: messages with receipts through the running stack (npm start, with the
// SMSC simulator as carrier) and back: time to the last submit_sm, time to the last receipt
// recorded (the last one sms-batch answered: it answers only once a receipt is recorded), end-to-end
// messages/s, the CPU each process used, and when the batch read model showed every message final.
// A warm-up run (BENCH_WARMUP messages, not reported) comes first: the first batch after a start
// pays for JIT compilation and connection set-up. Then BENCH_RUNS measured runs.
// Also the mean time sms-batch took to answer a receipt (its sms_batch_receipt_ack_seconds metric):
// the carrier's receipt window divided by it bounds the receipt rate.
// Settings: BENCH_MESSAGES (10000), BENCH_WARMUP (2000), BENCH_RUNS (3), MESSAGING_URL, ADMIN_URL,
// ADMIN_TOKEN, SMSC_HTTP_URL, SMS_BATCH_METRICS_URL.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { measuredProcesses } from '@seed/platform-testing';
import { cpuSecondsOf, json } from './bench-support';
import { runOf, spreadOf, startBenchmark } from './runner';

const root = join(__dirname, '../../..');
const env = process.env;
const total = Number(env['BENCH_MESSAGES'] ?? 10_000);
const warmup = Number(env['BENCH_WARMUP'] ?? 2000);
const runs = Number(env['BENCH_RUNS'] ?? 3);
const messagingUrl = env['MESSAGING_URL'] ?? 'http://127.0.0.1:3000';
const adminUrl = env['ADMIN_URL'] ?? 'http://127.0.0.1:3002';
const smscUrl = env['SMSC_HTTP_URL'] ?? 'http://127.0.0.1:2776';
const metricsUrl = env['SMS_BATCH_METRICS_URL'] ?? 'http://127.0.0.1:3110/metrics';
const adminToken = env['ADMIN_TOKEN'] ?? readFileSync(join(root, '.local/admin-token'), 'utf8').trim();
// The webhook dispatcher reads every status change too (and posts the ones with a target). In the
// order the results list them; how to find each one is tools/stack/processes.json's.
const PROCESSES = measuredProcesses('sms-batch', 'api-gateway', 'webhook-dispatcher', 'smsc-simulator', 'kafka', 'postgres');

/** Sum and count of sms-batch's receipt acknowledgement histogram; zeros when it cannot be read. */
async function receiptAcks(): Promise<{ sum: number; count: number }> {
  try {
    const text = await (await fetch(metricsUrl)).text();
    const value = (name: string) => Number(new RegExp(`^${name}\\{outcome="recorded"\\} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
    return { sum: value('sms_batch_receipt_ack_seconds_sum'), count: value('sms_batch_receipt_ack_seconds_count') };
  } catch {
    return { sum: 0, count: 0 };
  }
}

interface SimulatorStats {
  accepted: number;
  receiptsAcked: number;
}

async function untilBatchFinal(apiKey: string, subAccountId: string, batchId: string, count: number, started: number): Promise<number> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const view = await json<{ states: Record<string, number> }>(`${messagingUrl}/sms/v1/${subAccountId}/batches/${batchId}`, {
      headers: { authorization: `Bearer ${apiKey}` },
    });
    if ((view.states['delivered'] ?? 0) + (view.states['undelivered'] ?? 0) >= count) return performance.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('the batch read model did not show every message final within a minute of its receipts');
}

interface RunResult {
  messages: number;
  acceptMs: number;
  timeToLastSubmitMs: number;
  timeToLastReceiptMs: number;
  endToEndMessagesPerSecond: number;
  meanReceiptAckMs: number;
  /** When the batch read model showed every message final (after the timed part). */
  readModelFinalMs: number;
  cpuSeconds: Record<string, number>;
}

async function run(apiKey: string, subAccountId: string, count: number, offset: number): Promise<RunResult> {
  await json(`${smscUrl}/messages`, { method: 'DELETE' });
  const messages = Array.from({ length: count }, (_, i) => ({
    destination: `+447700${String(100_000 + ((offset + i) % 900_000)).padStart(6, '0')}`,
    text: `Delivery check ${i}: your parcel arrives today.`,
  }));
  const cpuBefore = PROCESSES.map((p) => cpuSecondsOf(p.commandLine));
  const acksBefore = await receiptAcks();
  const started = performance.now();
  const batch = await json<{ batchId: string; acceptedCount: number }>(`${messagingUrl}/sms/v1/${subAccountId}/many`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ template: { source: 'BENCH' }, messages }),
  });
  const acceptMs = performance.now() - started;
  // Progress is read from the carrier's side, which costs the platform nothing: the simulator
  // counts submit_sm it accepted and receipts it got an answer for, and sms-batch answers a receipt
  // only once it is recorded in the message's stream. (Polling the batch read API instead would take
  // CPU from the platform being measured.)
  const before = await json<SimulatorStats>(`${smscUrl}/stats`);
  let lastSubmitMs = 0;
  let lastReceiptMs = 0;
  const deadline = Date.now() + 10 * 60_000;
  while (Date.now() < deadline) {
    const stats = await json<SimulatorStats>(`${smscUrl}/stats`);
    if (!lastSubmitMs && stats.accepted - before.accepted >= batch.acceptedCount) lastSubmitMs = performance.now() - started;
    if (stats.receiptsAcked - before.receiptsAcked >= batch.acceptedCount) {
      lastReceiptMs = performance.now() - started;
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  if (!lastReceiptMs) throw new Error('not every receipt was recorded within 10 minutes');
  // Not timed: the read model (GET .../batches/{id}) shows every message final soon after.
  const readModelMs = await untilBatchFinal(apiKey, subAccountId, batch.batchId, batch.acceptedCount, started);
  const acksAfter = await receiptAcks();
  const acked = acksAfter.count - acksBefore.count;
  return {
    messages: batch.acceptedCount,
    acceptMs: Math.round(acceptMs),
    timeToLastSubmitMs: Math.round(lastSubmitMs || lastReceiptMs),
    timeToLastReceiptMs: Math.round(lastReceiptMs),
    endToEndMessagesPerSecond: Math.round(batch.acceptedCount / (lastReceiptMs / 1000)),
    meanReceiptAckMs: acked > 0 ? Number(((1000 * (acksAfter.sum - acksBefore.sum)) / acked).toFixed(1)) : 0,
    readModelFinalMs: Math.round(readModelMs),
    cpuSeconds: Object.fromEntries(PROCESSES.map((p, i) => [p.name, Number((cpuSecondsOf(p.commandLine) - (cpuBefore[i] ?? 0)).toFixed(1))])),
  };
}

async function main(): Promise<void> {
  const bench = startBenchmark('delivery', 'npm run bench:delivery', { messages: total, runs, warmup });
  const accountId = `delivery${Date.now().toString(36)}`;
  const { apiKey } = await json<{ apiKey: string }>(`${adminUrl}/admin/v1/accounts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ accountId }),
  });
  const subAccountId = `${accountId}_hq`;
  if (warmup > 0) await run(apiKey, subAccountId, warmup, 0);
  const results: RunResult[] = [];
  for (let i = 0; i < runs; i++) {
    const result = await run(apiKey, subAccountId, total, warmup + i * total);
    const { cpuSeconds, ...figures } = result;
    bench.run(runOf(figures, { label: `run ${i + 1}`, cpuSeconds }));
    results.push(result);
  }
  const rates = results.map((r) => r.endToEndMessagesPerSecond);
  bench.finish({ endToEndMessagesPerSecond: spreadOf(rates, 0), rates });
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
