import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readRecordedResults } from './recorded';
import { GENERATED_NOTE, renderPerformanceDoc, renderResult } from './render';
import type { BenchResult } from './result';

const ROOT = join(__dirname, '../../..');

const result: BenchResult = {
  schema: 1,
  benchmark: 'smpp',
  command: 'npm run bench:smpp',
  commit: { sha: '0123456789abcdef', dirty: true },
  startedAt: '2026-11-27T07:00:00.000Z',
  machine: { cpus: 2, model: 'AMD EPYC', node: 'v20.20.2', platform: 'linux-x64' },
  parameters: { messages: 50000, rounds: 2 },
  runs: [{ values: { microsecondsPerMessage: 20 } }, { values: { microsecondsPerMessage: 30 } }],
  summary: { microsecondsPerMessage: { median: 25, min: 20, max: 30 } },
  derived: { ratio: 1.5, nested: { spread: { median: 1, min: 0.5, max: 2 } }, rates: [1, 2] },
};

describe('renderResult', () => {
  it('names the command, parameters, commit and machine, then the spreads and derived figures', () => {
    expect(renderResult('smpp', 'npm run bench:smpp', result)).toBe(
      [
        'Measured with `npm run bench:smpp` (messages=50000, rounds=2) at commit `0123456789` with uncommitted changes on 2026-11-27, 2 x AMD EPYC, node v20.20.2; 2 run(s); [result](performance/results/smpp.json).',
        '',
        '| Metric | Median | Min | Max |',
        '| --- | --- | --- | --- |',
        '| microsecondsPerMessage | 25 | 20 | 30 |',
        '| derived: ratio | 1.5 | | |',
        '| derived: nested.spread | 1 | 0.5 | 2 |',
      ].join('\n'),
    );
  });

  it('says how to record a result not recorded yet', () => {
    expect(renderResult('idle', 'npm run bench:idle', undefined)).toBe('Not yet recorded (`idle`): run `npm run bench:idle` with `BENCH_RECORD=1`, then `npm run docs:performance`.');
  });
});

describe('renderPerformanceDoc', () => {
  it('replaces placeholder lines only', () => {
    const doc = renderPerformanceDoc('# T\n{{result smpp | npm run bench:smpp}}\ntext {{result smpp | x}}', new Map([['smpp', result]]));
    expect(doc.split('\n')[0]).toBe(GENERATED_NOTE);
    expect(doc).toContain('Measured with `npm run bench:smpp`');
    expect(doc).toContain('text {{result smpp | x}}');
  });

  it('is what docs/performance.md holds: its figures come from the recorded results (npm run docs:performance)', () => {
    const rendered = renderPerformanceDoc(readFileSync(join(ROOT, 'docs/performance/template.md'), 'utf8'), readRecordedResults(join(ROOT, 'docs/performance/results')));
    expect(readFileSync(join(ROOT, 'docs/performance.md'), 'utf8')).toBe(rendered);
  });
});
