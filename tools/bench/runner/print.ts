import type { BenchResult, BenchRun, Spread } from './result';

// The one human format every benchmark prints: a heading, a line a run, a table of medians and
// spreads, the derived figures, and where the result file went.

const figure = (value: number): string => (Number.isInteger(value) ? String(value) : String(Number(value.toFixed(2))));

export function heading(result: Pick<BenchResult, 'benchmark' | 'command' | 'commit' | 'machine' | 'parameters'>): string {
  const commit = result.commit ? `${result.commit.sha.slice(0, 10)}${result.commit.dirty ? ' (with uncommitted changes)' : ''}` : 'unknown commit';
  const machine = result.machine ? `${result.machine.cpus} x ${result.machine.model}, node ${result.machine.node}` : 'unknown machine';
  const parameters = Object.entries(result.parameters).map(([k, v]) => `${k}=${String(v)}`).join(' ');
  return `== ${result.benchmark}: ${result.command} at ${commit}\n   ${machine}\n   ${parameters}`;
}

export function runLine(run: BenchRun): string {
  const values = Object.entries(run.values).map(([k, v]) => `${k}=${figure(v)}`);
  const cpu = Object.entries(run.cpuSecondsByProcess ?? {}).map(([k, v]) => `${k}=${figure(v)}`);
  const name = [run.side, run.label].filter(Boolean).join(' ') || 'run';
  return `-- ${name}: ${values.join(' ')}${cpu.length > 0 ? ` | cpu s: ${cpu.join(' ')}` : ''}`;
}

export function summaryTable(summary: Record<string, Spread>): string {
  const rows = Object.entries(summary);
  const width = Math.max(6, ...rows.map(([k]) => k.length));
  const cell = (v: string) => v.padStart(12);
  return [`${'metric'.padEnd(width)} ${cell('median')} ${cell('min')} ${cell('max')}`, ...rows.map(([k, s]) => `${k.padEnd(width)} ${cell(figure(s.median))} ${cell(figure(s.min))} ${cell(figure(s.max))}`)].join('\n');
}

export function report(result: BenchResult, file: string, recorded?: string): string {
  return [
    `== ${result.benchmark}: ${result.runs.length} run(s)`,
    summaryTable(result.summary),
    ...(result.derived && Object.keys(result.derived).length > 0 ? [`derived: ${JSON.stringify(result.derived)}`] : []),
    `result: ${file}${recorded ? `, recorded as ${recorded}` : ''}`,
  ].join('\n');
}
