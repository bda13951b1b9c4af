// `npm run bench:claims`: what one claim of each work queue costs with 0, 10,000 and 100,000 rows
// waiting, fresh and stale planner statistics (runClaimBench of @seed/platform-work-queue/bench).
// Each queue's fill and operations are its wing's (`claimBench` of the files named on the command
// line: apps/webhook-dispatcher/src/sending/delivery-claim.bench, apps/sms-batch/src/sending/outbound-claim.bench).
// One run per (queue, operation, size, statistics), as its side: the median and slowest call, the
// rows a call took, and the buffers of the plan before and after the timed calls (buffer counts
// are stable between runs; times are not). Settings: DATABASE_URL, BENCH_RUNS (20 calls a cell),
// BENCH_SIZES (0,10000,100000), BENCH_PLANS=1 (the largest size's plans, on stderr).
import { join } from 'node:path';
import { claimTable, runClaimBench, type ClaimBenchQueue, type ClaimCell } from '@seed/platform-work-queue/bench';
import { startBenchmark } from './runner';

async function main(): Promise<void> {
  const entries = process.argv.slice(2);
  if (entries.length === 0) throw new Error('usage: node tools/scripts/run-dist.mjs tools/bench/claims.bench <wing bench path under dist without .js>...');
  const bench = startBenchmark('claims', 'npm run bench:claims', {
    callsPerCell: Number(process.env['BENCH_RUNS'] ?? 20),
    sizes: process.env['BENCH_SIZES'] ?? '0,10000,100000',
    batch: 500,
  });
  const cells: ClaimCell[] = [];
  for (const entry of entries) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- the wing's bench is named on the command line
    const { claimBench } = require(join(__dirname, '../..', entry)) as { claimBench?: ClaimBenchQueue<string> };
    if (!claimBench) throw new Error(`${entry} exports no \`claimBench\``);
    for (const cell of await runClaimBench(claimBench)) {
      cells.push(cell);
      bench.run({
        side: `${cell.queue}/${cell.op}/${cell.n}/${cell.stats}`,
        label: `${cell.queue} ${cell.op} N=${cell.n} ${cell.stats}`,
        values: { medianMs: cell.medianMs, maxMs: cell.maxMs, rowsPerCall: cell.rowsPerCall, buffersFirst: cell.explainFirst.buffers, buffersLast: cell.explainLast.buffers },
        details: { explainFirst: cell.explainFirst, explainLast: cell.explainLast },
      });
    }
  }
  console.log(`\n${claimTable(cells)}`);
  bench.finish();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
