import { readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { RunningStack } from '@seed/platform-testing';

/** pino's error and fatal levels. */
const ERROR_LEVEL = 50;

/**
 * The error-level lines every process of the stack wrote since `sinceMs` (all of them without it),
 * as `<service>: <message>`: what an operator would be paged to read. The stack logs one JSON
 * file per process under STACK_LOG (tools/scripts/stack.mjs).
 */
export function errorLines(stack: RunningStack, sinceMs = 0): string[] {
  const prefix = stack.env['STACK_LOG'];
  if (!prefix) throw new Error('the stack was started without STACK_LOG: its logs are not in files');
  const files = readdirSync(dirname(prefix)).filter((file) => file.startsWith(basename(prefix)) && file.endsWith('.log'));
  return files.flatMap((file) =>
    readFileSync(join(dirname(prefix), file), 'utf8')
      .split('\n')
      .flatMap((line) => {
        const entry = parsed(line);
        if (!entry) return [];
        if ((entry.level ?? 0) < ERROR_LEVEL || Date.parse(entry.time ?? '') < sinceMs) return [];
        return [`${entry.service ?? file}: ${entry.msg ?? ''}`];
      }),
  );
}

function parsed(line: string): { level?: number; time?: string; service?: string; msg?: string } | null {
  if (!line.startsWith('{')) return null;
  try {
    return JSON.parse(line) as { level?: number; time?: string; service?: string; msg?: string };
  } catch {
    return null; // a line being written as the file is read
  }
}
