// Runs one in-process benchmark of an app or library (`*.bench.ts` beside the code it measures) on
// the common runner: `node tools/scripts/run-dist.mjs tools/bench/micro.bench <its path under dist,
// without .js>`. Such a file cannot import tools/ (libraries depend on nothing outside them), so it
// exports what to time as `benchmark` and this script warms up, times the rounds and records them.
import { join } from 'node:path';
import { startBenchmark, type Parameter } from './runner';

/** What an in-process benchmark exports. */
interface MicroBenchmark {
  /** The result's id (tools/bench/README.md). */
  id: string;
  command: string;
  parameters: Record<string, Parameter>;
  /** What one round returns (`ms` a batch, `microsecondsPerMessage`, ...). */
  metric: string;
  rounds: number;
  /**
   * Run before the measured rounds: JIT compilation and first allocations, not reported. Absent:
   * as many unreported rounds as measured ones.
   */
  warmup?: () => void;
  round: () => number;
}

const entry = process.argv[2];
if (!entry) {
  console.error('usage: node tools/scripts/run-dist.mjs tools/bench/micro.bench <path under dist without .js>');
  process.exit(2);
}
// eslint-disable-next-line @typescript-eslint/no-require-imports -- the benchmark is named on the command line
const { benchmark } = require(join(__dirname, '../..', entry)) as { benchmark?: MicroBenchmark };
if (!benchmark) {
  console.error(`${entry} exports no \`benchmark\``);
  process.exit(2);
}
const bench = startBenchmark(benchmark.id, benchmark.command, benchmark.parameters);
if (benchmark.warmup) benchmark.warmup();
else for (let i = 0; i < benchmark.rounds; i++) benchmark.round();
for (let i = 1; i <= benchmark.rounds; i++) bench.run({ label: `round ${i}`, values: { [benchmark.metric]: Number(benchmark.round().toFixed(2)) } });
bench.finish();
