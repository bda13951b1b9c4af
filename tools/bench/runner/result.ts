// The one shape every benchmark's result takes (tools/bench/README.md): what ran, where, with which
// parameters, each run's figures and their median and spread. docs/performance.md is rendered from
// these files, so a figure in it always names the command and commit that produced it.

export interface Spread {
  median: number;
  min: number;
  max: number;
}

export type Parameter = string | number | boolean;

export interface BenchRun {
  /** In comparisons, whose run it is (`platform`, `kannel`, ...); absent when there is one side. */
  side?: string;
  /** The run's name as printed (`platform-2`, `run 1`, `round 3`). */
  label?: string;
  /** The run's figures, by metric name (messagesPerSecond, latencyMs.p99, ...). */
  values: Record<string, number>;
  /** CPU seconds each process used during the run, by its name in tools/stack/processes.json. */
  cpuSecondsByProcess?: Record<string, number>;
  /** What else the run reports that is not a figure (callbacks by state, carriers, ...). */
  details?: Record<string, unknown>;
}

export interface BenchResult {
  schema: 1;
  /** The benchmark's id: the npm script's suffix (`e2e` for `npm run bench:e2e`) and a variant if any. */
  benchmark: string;
  /** The command that produced it, as typed. */
  command: string;
  /** Set on results not measured by this runner (figures carried over from an earlier document). */
  source?: string;
  /** `git rev-parse HEAD` and whether the working tree had changes; null when unknown. */
  commit: { sha: string; dirty: boolean } | null;
  startedAt: string;
  finishedAt?: string;
  machine: { cpus: number; model: string; node: string; platform: string } | null;
  parameters: Record<string, Parameter>;
  runs: BenchRun[];
  /** Median and spread over the runs of each metric, `<side>.<metric>` in comparisons. */
  summary: Record<string, Spread>;
  /** Figures computed from the runs that are not one metric's spread (ratios of medians, ...). */
  derived?: Record<string, unknown>;
}

const round = (value: number, digits: number): number => Number(value.toFixed(digits));

/** Median (the mean of the middle two for an even count), min and max, to `digits` decimals. */
export function spreadOf(values: readonly number[], digits = 2): Spread {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length / 2;
  const median = sorted.length % 2 === 1 ? (sorted[Math.floor(middle)] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
  return { median: round(median, digits), min: round(sorted[0] ?? NaN, digits), max: round(sorted[sorted.length - 1] ?? NaN, digits) };
}

/**
 * Every metric's spread over the runs that have it, and every process's CPU seconds as
 * `cpuSeconds.<process>`; prefixed by the side where runs have one.
 */
export function summarise(runs: readonly BenchRun[]): Record<string, Spread> {
  const series = new Map<string, number[]>();
  const add = (key: string, value: number) => {
    if (!Number.isFinite(value)) return;
    const list = series.get(key) ?? [];
    list.push(value);
    series.set(key, list);
  };
  for (const run of runs) {
    const prefix = run.side ? `${run.side}.` : '';
    for (const [metric, value] of Object.entries(run.values)) add(`${prefix}${metric}`, value);
    for (const [process, seconds] of Object.entries(run.cpuSecondsByProcess ?? {})) add(`${prefix}cpuSeconds.${process}`, seconds);
  }
  return Object.fromEntries([...series].map(([key, values]) => [key, spreadOf(values)]));
}

/**
 * The numbers of a result object as metrics (`latencyMs: { p50 }` becomes `latencyMs.p50`); what is
 * not a number goes to the details.
 */
export function figuresOf(result: Record<string, unknown>, prefix = ''): { values: Record<string, number>; details: Record<string, unknown> } {
  const values: Record<string, number> = {};
  const details: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(result)) {
    if (typeof value === 'number') values[`${prefix}${key}`] = value;
    else if (value && typeof value === 'object' && !Array.isArray(value) && Object.values(value).every((v) => typeof v === 'number')) {
      Object.assign(values, figuresOf(value as Record<string, unknown>, `${prefix}${key}.`).values);
    } else if (value !== undefined) details[`${prefix}${key}`] = value;
  }
  return { values, details };
}

/** Sides in the order of run `i` (from 1): as given on odd runs, reversed on even ones (A B, B A, A B, ...). */
export function alternation<T>(i: number, sides: readonly T[]): T[] {
  return i % 2 === 1 ? [...sides] : [...sides].reverse();
}

/** A run from a benchmark's own result object: its numbers as values, the CPU apart, the rest as details. */
export function runOf(result: Record<string, unknown>, { side, label, cpuSeconds }: { side?: string; label?: string; cpuSeconds?: Record<string, number> } = {}): BenchRun {
  const { values, details } = figuresOf(result);
  return { ...(side ? { side } : {}), ...(label ? { label } : {}), values, ...(cpuSeconds ? { cpuSecondsByProcess: cpuSeconds } : {}), ...(Object.keys(details).length > 0 ? { details } : {}) };
}
