// Compiles apps/, libs/ and tools/ to dist/ with swc (type checking is `npm run typecheck`'s job).
// Path aliases of tsconfig.base.json become relative requires, so `node dist/...` needs no loader.
import { readFileSync, readdirSync, statSync, mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { transformFileSync } from '@swc/core';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const out = join(root, 'dist');
const { compilerOptions } = JSON.parse(readFileSync(join(root, 'tsconfig.base.json'), 'utf8'));

function* sources(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* sources(path);
    else if (name.endsWith('.ts') && !name.endsWith('.spec.ts') && !name.endsWith('.d.ts')) yield path;
  }
}

rmSync(out, { recursive: true, force: true });
let count = 0;
for (const top of ['apps', 'libs', 'tools']) {
  for (const file of sources(join(root, top))) {
    const { code, map } = transformFileSync(file, {
      swcrc: false,
      sourceMaps: true,
      jsc: {
        target: 'es2022',
        parser: { syntax: 'typescript', decorators: true },
        transform: { legacyDecorator: true, decoratorMetadata: true },
        keepClassNames: true,
        baseUrl: root,
        paths: compilerOptions.paths,
      },
      module: { type: 'commonjs' },
    });
    const target = join(out, relative(root, file)).replace(/\.ts$/, '.js');
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, `${code}\n//# sourceMappingURL=${target.split('/').pop()}.map\n`);
    if (map) writeFileSync(`${target}.map`, map);
    count++;
  }
}
console.log(`[build] ${count} files compiled to dist/`);
