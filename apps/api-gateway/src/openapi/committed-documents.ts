import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { ListenerName } from '../http/http-listeners';

/** The command that rewrites the committed documents from the code. */
export const REGENERATE_COMMAND = 'npm run openapi';

/** `docs/openapi/<listener>.json` of the repository. */
export function committedDocumentPath(listener: ListenerName): string {
  return join(repositoryRoot(), 'docs', 'openapi', `${listener}.json`);
}

/** The directory holding nx.json, above this file whether it runs from src/ (Jest) or dist/ (node). */
function repositoryRoot(): string {
  for (let dir = __dirname; dir !== dirname(dir); dir = dirname(dir)) {
    if (existsSync(join(dir, 'nx.json'))) return dir;
  }
  throw new Error(`no nx.json above ${__dirname}`);
}
