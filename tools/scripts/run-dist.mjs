// Runs a compiled entry point of dist/ (building first; it takes well under a second) with the
// settings of .local/infra.env for whatever the environment does not already give.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const [entry, ...args] = process.argv.slice(2);
if (!entry) {
  console.error('usage: node tools/scripts/run-dist.mjs <path under dist without .js> [args]');
  process.exit(2);
}
const envFile = join(root, '.local/infra.env');
if (existsSync(envFile)) {
  for (const line of readFileSync(envFile, 'utf8').split('\n')) {
    const match = /^([A-Z_]+)=(.*)$/.exec(line.trim());
    if (match && !process.env[match[1]]) process.env[match[1]] = match[2];
  }
}
process.env.KAFKAJS_NO_PARTITIONER_WARNING ??= '1';
execFileSync(process.execPath, [join(root, 'tools/scripts/build.mjs')], { stdio: ['ignore', 'ignore', 'inherit'] });
process.argv = [process.argv[0], join(root, 'dist', `${entry}.js`), ...args];
createRequire(import.meta.url)(join(root, 'dist', `${entry}.js`));
