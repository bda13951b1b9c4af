// What the benchmark scripts share: JSON over HTTP, an open-loop load generator, percentiles, CPU time of processes.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { infrastructureProcesses, stackProcesses } from '@seed/platform-testing';

/**
 * Starts `rate` flows a second for `seconds` s, on schedule whether or not earlier flows have
 * ended (open loop: a slow system meets the offered load, not a politely waiting client).
 * `flow(n)` gets the flow's number, `firstFlow` upwards; a failed flow is counted by its error.
 * Resolves, once every flow has ended, with the seconds it took.
 */
export async function openLoop(
  rate: number,
  seconds: number,
  firstFlow: number,
  flow: (n: number) => Promise<void>,
  failures?: Map<string, number>,
): Promise<number> {
  const total = Math.round(rate * seconds);
  const flows: Promise<void>[] = [];
  const started = performance.now();
  for (let i = 0; i < total; i++) {
    const wait = started + (i * 1000) / rate - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    flows.push(
      flow(firstFlow + i).catch((error: unknown) => {
        failures?.set(String(error), (failures.get(String(error)) ?? 0) + 1);
      }),
    );
  }
  await Promise.all(flows);
  return (performance.now() - started) / 1000;
}

/** The p-th percentile (nearest rank) of the values, to 0.1; NaN for none. */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return Number((sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN).toFixed(1));
}

/**
 * CPU seconds (user + system) used so far by the processes whose command line matches `pattern`;
 * only children of `parent` when given (other stacks may run too). 0 when none runs.
 */
export function cpuSecondsOf(pattern: string, parent?: number): number {
  let pids: string[] = [];
  try {
    pids = execFileSync('pgrep', [...(parent ? ['-P', String(parent)] : []), '-f', pattern]).toString().trim().split('\n').filter(Boolean);
  } catch {
    return 0;
  }
  return cpuSecondsOfPids(pids);
}

/** CPU seconds (user + system) used so far by these processes; 0 for those that are gone. */
export function cpuSecondsOfPids(pids: readonly (number | string)[]): number {
  let ticks = 0;
  for (const pid of pids) {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // exited meanwhile
    }
  }
  return ticks / 100; // USER_HZ
}

/** A JSON request that must succeed: any other status throws with the answer's text. */
export async function json<T>(url: string, init?: RequestInit): Promise<T> {
  const res = await fetch(url, init);
  if (!res.ok) throw new Error(`${init?.method ?? 'GET'} ${url}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/**
 * Every process of a local stack whose CPU a benchmark reports, by its name in
 * tools/stack/processes.json: command-line patterns, the stack's mains and the infrastructure's.
 */
export const STACK_PROCESSES: Record<string, string> = Object.fromEntries([
  ...stackProcesses().map((p): [string, string] => [p.name, p.main]),
  ...infrastructureProcesses().map((p): [string, string] => [p.name, p.commandLine]),
]);

/**
 * Starts counting the stack's CPU; the function returned gives the milliseconds of CPU each process
 * (and all of them) used since, divided by `operations`: CPU per operation, which docs/sizing.md turns into cores.
 */
export function stackCpuMeter(): (operations: number) => Record<string, number> {
  const before = Object.fromEntries(Object.entries(STACK_PROCESSES).map(([name, pattern]) => [name, cpuSecondsOf(pattern)]));
  return (operations) => {
    const per = Object.fromEntries(
      Object.entries(STACK_PROCESSES).map(([name, pattern]) => [name, Number((((cpuSecondsOf(pattern) - (before[name] ?? 0)) * 1000) / Math.max(1, operations)).toFixed(2))]),
    );
    return { ...per, total: Number(Object.values(per).reduce((a, b) => a + b, 0).toFixed(2)) };
  };
}
