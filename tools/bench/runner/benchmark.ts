import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join, relative } from 'node:path';
import { heading, report, runLine } from './print';
import { summarise, type BenchResult, type BenchRun, type Parameter } from './result';

// The repository root, from dist/tools/bench/runner/ (benchmarks run compiled) or the sources.
const ROOT = join(__dirname, __dirname.includes('/dist/') ? '../../../..' : '../../..');
/** Where every result goes (git-ignored). */
export const RESULTS_DIR = join(ROOT, 'bench-results');
/** Where BENCH_RECORD=1 copies it (committed: docs/performance.md is rendered from it). */
export const RECORDED_DIR = join(ROOT, 'docs/performance/results');

export interface Benchmark {
  /** Prints the run in the common format and keeps it for the result. */
  run(run: BenchRun): void;
  /** Summarises, writes the result file (and its recorded copy with BENCH_RECORD=1), prints the summary. */
  finish(derived?: Record<string, unknown>): BenchResult;
}

function commit(): BenchResult['commit'] {
  try {
    const sha = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    // Changes under docs/ (the recorded results a run writes, the rendered document) change nothing measured.
    const changed = execFileSync('git', ['status', '--porcelain', '--untracked-files=no', '--', '.', ':(exclude)docs'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    const dirty = changed.trim() !== '';
    return { sha, dirty };
  } catch {
    return null;
  }
}

function machine(): BenchResult['machine'] {
  const list = cpus();
  return { cpus: list.length, model: list[0]?.model.trim() ?? 'unknown', node: process.version, platform: `${process.platform}-${process.arch}` };
}

/**
 * Starts a benchmark's result: `benchmark` is its id (the npm script's suffix, with a variant if
 * one script measures several things), `parameters` every setting that changes what it measures.
 */
export function startBenchmark(benchmark: string, command: string, parameters: Record<string, Parameter>): Benchmark {
  const started = new Date();
  const runs: BenchRun[] = [];
  const head = { benchmark, command, commit: commit(), machine: machine(), parameters };
  console.log(heading(head));
  return {
    run(run) {
      runs.push(run);
      console.log(runLine(run));
    },
    finish(derived) {
      const result: BenchResult = {
        schema: 1,
        ...head,
        startedAt: started.toISOString(),
        finishedAt: new Date().toISOString(),
        runs,
        summary: summarise(runs),
        ...(derived ? { derived } : {}),
      };
      mkdirSync(RESULTS_DIR, { recursive: true });
      const file = join(RESULTS_DIR, `${benchmark}-${result.startedAt.replace(/[:.]/g, '-')}.json`);
      writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
      let recorded: string | undefined;
      if (process.env['BENCH_RECORD'] === '1') {
        mkdirSync(RECORDED_DIR, { recursive: true });
        recorded = join(RECORDED_DIR, `${benchmark}.json`);
        copyFileSync(file, recorded);
      }
      console.log(report(result, relative(ROOT, file), recorded && relative(ROOT, recorded)));
      return result;
    },
  };
}
