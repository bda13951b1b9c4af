// Compiles apps/, libs/ and tools/ to dist/ with swc (type checking is `npm run typecheck`'s job).
// Path aliases of tsconfig.base.json become relative requires, so `node dist/...` needs no loader.
import { readFileSync, readdirSync, statSync, mkdirSync, writeFileSync, renameSync, rmSync, existsSync } from 'node:fs';
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

// Files are replaced one by one (write, then rename), never by emptying dist/ first: a stack that
// is starting from dist/ meanwhile (another test run, `npm start`) then never finds a file missing
// or half written. Outputs whose source is gone are removed at the end.
const written = new Set();
const replace = (path, content) => {
  writeFileSync(`${path}.tmp${process.pid}`, content);
  renameSync(`${path}.tmp${process.pid}`, path);
  written.add(path);
};
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
    replace(target, `${code}\n//# sourceMappingURL=${target.split('/').pop()}.map\n`);
    if (map) replace(`${target}.map`, map);
    count++;
  }
}
function* outputs(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* outputs(path);
    else yield path;
  }
}
if (existsSync(out)) for (const file of outputs(out)) if (!written.has(file) && !/\.tmp\d+$/.test(file)) rmSync(file);
console.log(`[build] ${count} files compiled to dist/`);
