import { randomBytes } from 'node:crypto';

/**
 * A name no other test file uses: schemas and topic prefixes are unique per file so that files
 * run in parallel against one Postgres and one broker without seeing each other's data.
 */
export function uniqueName(prefix: string): string {
  return `${prefix}_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`.toLowerCase();
}
