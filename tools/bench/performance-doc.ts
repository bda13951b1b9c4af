// `npm run docs:performance`: renders docs/performance.md from docs/performance/template.md and the
// recorded results (docs/performance/results/<id>.json, written by a benchmark run with
// BENCH_RECORD=1). `--check` only says whether the committed document is the render.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readRecordedResults } from './runner/recorded';
import { renderPerformanceDoc } from './runner/render';

const root = join(__dirname, __dirname.includes('/dist/') ? '../../..' : '../..');
const target = join(root, 'docs/performance.md');
const rendered = renderPerformanceDoc(readFileSync(join(root, 'docs/performance/template.md'), 'utf8'), readRecordedResults(join(root, 'docs/performance/results')));
if (process.argv.includes('--check')) {
  if (readFileSync(target, 'utf8') !== rendered) {
    console.error('docs/performance.md is not the render of its template and results: run npm run docs:performance');
    process.exit(1);
  }
} else {
  writeFileSync(target, rendered);
  console.log('docs/performance.md rendered');
}
