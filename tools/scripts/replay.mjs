// `npm run replay -- <service>`: rebuilds the service's read models from its event log.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const service = process.argv[2];
const backEnd = JSON.parse(readFileSync(join(root, 'tools/stack/processes.json'), 'utf8')).processes.filter((p) => p.role === 'service').map((p) => p.name);
if (!service || !existsSync(join(root, 'apps', service, 'src/replay.ts'))) {
  console.error(`usage: npm run replay -- <service>   (services with read models: ${backEnd.filter((s) => existsSync(join(root, 'apps', s, 'src/replay.ts'))).join(', ')})`);
  process.exit(2);
}
const result = spawnSync(process.execPath, [join(root, 'tools/scripts/run-dist.mjs'), `apps/${service}/src/replay`], { stdio: 'inherit' });
process.exit(result.status ?? 1);
