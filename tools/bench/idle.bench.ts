// `npm run bench:idle`: what the running stack (npm start) costs while nobody uses it: pollers,
// followers waiting for events, Kafka fetch loops and heartbeats, the broker and PostgreSQL behind
// them. Waits BENCH_WARMUP_SECONDS (10: start-up work and the first polls' backoff settle), then
// prints each process's CPU over BENCH_SECONDS (60) in milliseconds per second (1,000 = one core).
// Make no requests meanwhile: they would be counted.
import { setTimeout as sleep } from 'node:timers/promises';
import { stackCpuMeter } from './bench-support';
import { startBenchmark } from './runner';

const env = process.env;
const seconds = Number(env['BENCH_SECONDS'] ?? 60);
const warmupSeconds = Number(env['BENCH_WARMUP_SECONDS'] ?? 10);

async function main(): Promise<void> {
  const bench = startBenchmark('idle', 'npm run bench:idle', { seconds, warmupSeconds });
  await sleep(warmupSeconds * 1000);
  const meter = stackCpuMeter();
  await sleep(seconds * 1000);
  // CPU milliseconds per operation, the operation being one second of idling.
  const perSecond = meter(seconds);
  const { total, ...byProcess } = perSecond;
  bench.run({
    label: `${seconds} s idle`,
    values: { 'cpuMsPerSecond.total': total as number, shareOfOneCore: Number(((total as number) / 1000).toFixed(3)) },
    // CPU seconds over the run, as every benchmark reports them; the milliseconds a second are the derived figure.
    cpuSecondsByProcess: Object.fromEntries(Object.entries(byProcess).map(([name, ms]) => [name, Number(((ms * seconds) / 1000).toFixed(2))])),
  });
  bench.finish({ cpuMsPerSecond: perSecond });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
