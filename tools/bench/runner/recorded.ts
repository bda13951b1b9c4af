import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchResult } from './result';

/** The recorded results of a folder, by id (the file name without .json). */
export function readRecordedResults(dir: string): Map<string, BenchResult> {
  if (!existsSync(dir)) return new Map();
  return new Map(
    readdirSync(dir)
      .filter((name) => name.endsWith('.json'))
      .sort()
      .map((name) => [name.slice(0, -'.json'.length), JSON.parse(readFileSync(join(dir, name), 'utf8')) as BenchResult]),
  );
}
