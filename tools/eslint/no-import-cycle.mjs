// A file must not import, however indirectly, a file that imports it: dependencies flow one way.
// Unlike import-x/no-cycle, type-only imports count too: a cycle of types is still two files that
// cannot be read, moved or split one without the other. Imports are resolved as TypeScript does
// (tsconfig.base.json's `@seed/*` paths included), script modules by their relative path, read with `ts.preProcessFile` (no full parse)
// and kept per file until it changes, so a lint run reads each file once.
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const configFile = ts.findConfigFile(process.cwd(), ts.sys.fileExists, 'tsconfig.base.json');
if (!configFile) throw new Error('no-import-cycle: tsconfig.base.json not found');
const { options } = ts.parseJsonConfigFileContent(ts.readConfigFile(configFile, ts.sys.readFile).config, ts.sys, path.dirname(configFile));
const resolutions = ts.createModuleResolutionCache(path.dirname(configFile), (name) => name, options);
/** file -> its mtime and the project files it imports. */
const graph = new Map();

/** Script modules (`.mjs`, `.js`) import each other by relative path, with the extension. */
const SCRIPT = /\.m?js$/;

function resolve(specifier, from) {
  if (specifier.startsWith('.') && SCRIPT.test(specifier)) {
    const file = path.resolve(path.dirname(from), specifier);
    return fs.existsSync(file) ? file : null;
  }
  const resolved = ts.resolveModuleName(specifier, from, options, ts.sys, resolutions).resolvedModule;
  if (!resolved || resolved.isExternalLibraryImport || resolved.extension !== '.ts') return null;
  return path.resolve(resolved.resolvedFileName);
}

function importsOf(file) {
  const mtimeMs = fs.statSync(file, { throwIfNoEntry: false })?.mtimeMs;
  if (mtimeMs === undefined) return [];
  const known = graph.get(file);
  if (known?.mtimeMs === mtimeMs) return known.imports;
  const { importedFiles } = ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, false);
  const imports = [...new Set(importedFiles.map(({ fileName }) => resolve(fileName, file)).filter(Boolean))];
  graph.set(file, { mtimeMs, imports });
  return imports;
}

/** The way from `start` back to `target`, or null; `dead` keeps files known not to lead there. */
function wayBack(start, target, dead) {
  const cameFrom = new Map([[start, null]]);
  const queue = [start];
  while (queue.length > 0) {
    const file = queue.shift();
    for (const next of importsOf(file)) {
      if (next === target) {
        const way = [file];
        for (let at = cameFrom.get(file); at; at = cameFrom.get(at)) way.unshift(at);
        return way;
      }
      if (cameFrom.has(next) || dead.has(next)) continue;
      cameFrom.set(next, file);
      queue.push(next);
    }
  }
  for (const file of cameFrom.keys()) dead.add(file);
  return null;
}

export default {
  meta: { type: 'problem', docs: { description: 'no import cycles, type-only imports included' }, schema: [], messages: { cycle: 'Import cycle: {{way}}' } },
  create(context) {
    const file = path.resolve(context.physicalFilename);
    const root = path.dirname(configFile);
    const dead = new Set();
    const check = (node) => {
      if (!node.source || typeof node.source.value !== 'string') return;
      const imported = resolve(node.source.value, file);
      if (!imported || imported === file) return;
      const way = wayBack(imported, file, dead);
      if (way) context.report({ node, messageId: 'cycle', data: { way: [file, ...way, file].map((f) => path.relative(root, f)).join(' -> ') } });
    };
    return { ImportDeclaration: check, ExportNamedDeclaration: check, ExportAllDeclaration: check, ImportExpression: check };
  },
};
