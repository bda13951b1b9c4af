// `npm run bench:batch`: 10,000-message batches through the running stack (start it with npm start).
// Prints p50/p95 accept latency, messages/s and the peak RSS of api-gateway and sms-batch.
// Settings: BENCH_BATCHES (default 10), BENCH_SIZE (10000), BENCH_INVALID_PERCENT (2),
// BENCH_INCLUDE_MESSAGES (false), MESSAGING_URL, ADMIN_URL, ADMIN_TOKEN (default .local/admin-token).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { measuredProcesses } from '@seed/platform-testing';
import { stackCpuMeter } from './bench-support';
import { startBenchmark } from './runner';

const root = join(__dirname, '../../..');
const env = process.env;
const batches = Number(env['BENCH_BATCHES'] ?? 10);
const size = Number(env['BENCH_SIZE'] ?? 10_000);
const invalidPercent = Number(env['BENCH_INVALID_PERCENT'] ?? 2);
const includeMessages = env['BENCH_INCLUDE_MESSAGES'] === 'true';
const messagingUrl = env['MESSAGING_URL'] ?? 'http://127.0.0.1:3000';
const adminUrl = env['ADMIN_URL'] ?? 'http://127.0.0.1:3002';
const adminToken = env['ADMIN_TOKEN'] ?? readFileSync(join(root, '.local/admin-token'), 'utf8').trim();

function batchBody(run: number): string {
  const messages = Array.from({ length: size }, (_, i) => {
    const invalid = invalidPercent > 0 && i % Math.round(100 / invalidPercent) === 0;
    const subscriber = String(1_000_000 + ((run * size + i) % 8_999_999)).padStart(7, '0');
    return {
      destination: invalid ? `+44${subscriber.slice(0, 3)}` : `+447700${subscriber.slice(1)}`,
      clientMessageId: `r${run}-m${i}`,
      text: `Hello customer ${i}, your order ${run * size + i} has shipped. Track it in the app.`,
    };
  });
  return JSON.stringify({ template: { source: 'BENCH' }, includeMessagesInResponse: includeMessages, messages });
}

// The processes whose peak RSS the results report, in their order; how to find them is tools/stack/processes.json's.
const RSS_OF = measuredProcesses('api-gateway', 'sms-batch');

function peakRssMb(commandLine: string): number | null {
  try {
    const pids = execFileSync('pgrep', ['-f', commandLine]).toString().trim().split('\n');
    const peaks = pids.map((pid) => {
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024;
    });
    return Math.max(...peaks);
  } catch {
    return null;
  }
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

async function main(): Promise<void> {
  if (!existsSync(join(root, '.local')) && !env['ADMIN_TOKEN']) throw new Error('start the stack first: npm start');
  const bench = startBenchmark('batch', 'npm run bench:batch', { batches, batchSize: size, invalidPercent, includeMessagesInResponse: includeMessages });
  const accountId = `bench${Date.now().toString(36)}`;
  const created = await fetch(`${adminUrl}/admin/v1/accounts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ accountId }),
  });
  if (created.status !== 201) throw new Error(`account creation failed: ${created.status} ${await created.text()}`);
  const { apiKey } = (await created.json()) as { apiKey: string };

  const latencies: number[] = [];
  let accepted = 0;
  let rejected = 0;
  const bodies = Array.from({ length: batches + 1 }, (_, run) => batchBody(run)); // built before timing
  const started = Date.now();
  let stackCpu: ReturnType<typeof stackCpuMeter> | undefined;
  for (let run = 0; run <= batches; run++) {
    if (run === 1) stackCpu = stackCpuMeter();
    const t0 = performance.now();
    const res = await fetch(`${messagingUrl}/sms/v1/${accountId}_hq/many`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: bodies[run],
    });
    const body = (await res.json()) as { acceptedCount: number; rejectedCount: number };
    const ms = performance.now() - t0;
    if (res.status !== 200) throw new Error(`batch ${run} failed: ${res.status} ${JSON.stringify(body)}`);
    if (run === 0) continue; // warm-up: JIT, connection pools, first fetches
    latencies.push(ms);
    accepted += body.acceptedCount;
    rejected += body.rejectedCount;
    bench.run({ label: `batch ${run}`, values: { acceptMs: Math.round(ms), accepted: body.acceptedCount, rejected: body.rejectedCount } });
  }
  // Until the last batch was accepted; the sending of the first ones has begun by then, so this is
  // an upper bound of acceptance alone.
  const stackCpuMsPerMessage = stackCpu?.(batches * size);
  const elapsed = (Date.now() - started) / 1000;
  const sorted = [...latencies].sort((a, b) => a - b);
  const total = latencies.reduce((a, b) => a + b, 0) / 1000;
  bench.finish({
    acceptedCount: accepted,
    rejectedCount: rejected,
    p50Ms: Math.round(percentile(sorted, 50)),
    p95Ms: Math.round(percentile(sorted, 95)),
    messagesPerSecond: Math.round((batches * size) / total),
    wallSeconds: Number(elapsed.toFixed(1)),
    stackCpuMsPerMessage,
    peakRssMb: Object.fromEntries(RSS_OF.map((p) => [p.name, peakRssMb(p.commandLine)])),
  });
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
