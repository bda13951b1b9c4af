import 'reflect-metadata';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import { committedDocumentPath } from './committed-documents';
import { documentsWithoutInfrastructure } from './documentation-app';
import { LISTENERS, serializeDocument } from './openapi-documents';

/**
 * `npm run openapi`: writes docs/openapi/<listener>.json from the code, without PostgreSQL or
 * Kafka. The drift test (openapi-documents.unit.spec.ts) fails until they are committed.
 */
async function main(): Promise<void> {
  const documents = await documentsWithoutInfrastructure();
  for (const listener of LISTENERS) {
    const path = committedDocumentPath(listener);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, serializeDocument(documents[listener]));
    const operations = Object.values(documents[listener].paths).reduce((n, item) => n + Object.keys(item).length, 0);
    process.stdout.write(`[openapi] ${relative(process.cwd(), path)}: ${operations} operations\n`);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
