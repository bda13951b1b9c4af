import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { OpenAPIObject, OperationObject } from '@nestjs/swagger';
import { servesPath } from '../http/http-listeners';
import { committedDocumentPath, REGENERATE_COMMAND } from './committed-documents';
import { documentsWithoutInfrastructure } from './documentation-app';
import { API_DOCUMENT_VERSION, LISTENERS, serializeDocument, type ListenerDocuments } from './openapi-documents';

type Operation = OperationObject & { method: string; path: string };

const operationsOf = (document: OpenAPIObject): Operation[] =>
  Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item as Record<string, OperationObject>).map(([method, operation]) => ({ ...operation, method, path })),
  );

/** Where two texts first differ, for a failure message that says more than "not equal". */
function firstDifference(committed: string, generated: string): string {
  const a = committed.split('\n');
  const b = generated.split('\n');
  const line = a.findIndex((text, i) => text !== b[i]);
  const at = line < 0 ? a.length : line;
  return `line ${at + 1}: committed ${JSON.stringify(a[at] ?? '<end>')}, generated ${JSON.stringify(b[at] ?? '<end>')}`;
}

describe('OpenAPI documents of the gateway listeners', () => {
  let documents: ListenerDocuments;

  beforeAll(async () => {
    documents = await documentsWithoutInfrastructure();
  });

  it.each(LISTENERS)('docs/openapi/%s.json is what the code generates', (listener) => {
    const path = committedDocumentPath(listener);
    const generated = serializeDocument(documents[listener]);
    const committed = existsSync(path) ? readFileSync(path, 'utf8') : '';
    if (committed !== generated) {
      throw new Error(
        `docs/openapi/${listener}.json is not what the code generates (${committed ? firstDifference(committed, generated) : 'missing'}). ` +
          `Run \`${REGENERATE_COMMAND}\` and commit docs/openapi/.`,
      );
    }
  });

  it('are OpenAPI 3.1.0 with the platform version', () => {
    const { version } = JSON.parse(readFileSync(join(__dirname, '../../../../package.json'), 'utf8')) as { version: string };
    expect(API_DOCUMENT_VERSION).toBe(version);
    for (const listener of LISTENERS) expect(documents[listener]).toMatchObject({ openapi: '3.1.0', info: { version } });
  });

  it("each holds only its listener's paths, and every path is in one of them", () => {
    for (const listener of LISTENERS) {
      for (const path of Object.keys(documents[listener].paths)) expect({ listener, path, served: servesPath(listener, path) }).toEqual({ listener, path, served: true });
    }
    expect(operationsOf(documents.messaging).length).toBeGreaterThan(0);
    expect(operationsOf(documents.agent).length).toBeGreaterThan(0);
    expect(operationsOf(documents.admin).length).toBeGreaterThan(0);
  });

  it('every operation has an id, a summary, a success with an example and the error body for every error', () => {
    const ids = new Set<string>();
    for (const listener of LISTENERS) {
      for (const op of operationsOf(documents[listener])) {
        const where = `${listener} ${op.method.toUpperCase()} ${op.path}`;
        expect({ where, operationId: typeof op.operationId, summary: typeof op.summary }).toEqual({ where, operationId: 'string', summary: 'string' });
        expect(ids.has(op.operationId as string)).toBe(false);
        ids.add(op.operationId as string);
        const statuses = Object.keys(op.responses);
        const success = statuses.filter((s) => s.startsWith('2'));
        expect({ where, success: success.length }).toEqual({ where, success: 1 });
        const ok = op.responses[success[0] as string] as { content?: Record<string, { example?: unknown; schema?: unknown }> };
        if (success[0] !== '204') expect({ where, example: Object.values(ok.content ?? {}).some((media) => media.example !== undefined) }).toEqual({ where, example: true });
        for (const status of statuses.filter((s) => Number(s) >= 400)) {
          const json = (op.responses[status] as { content?: Record<string, { schema?: unknown }> }).content?.['application/json'];
          expect({ where, status, schema: json?.schema }).toEqual({ where, status, schema: { $ref: '#/components/schemas/Error' } });
        }
        if (op.requestBody) expect({ where, examples: Object.keys((op.requestBody as { content: Record<string, { examples?: object }> }).content['application/json']?.examples ?? {}).length > 0 }).toEqual({ where, examples: true });
      }
    }
  });

  it('every operation that takes an API key documents 401, 429 (code 1600, Retry-After) and 503', () => {
    const withKey = [...operationsOf(documents.messaging), ...operationsOf(documents.agent)].filter((op) => op.security?.some((requirement) => 'apiKey' in requirement));
    expect(withKey.length).toBe(operationsOf(documents.messaging).length + 1);
    for (const op of withKey) {
      const tooMany = op.responses['429'] as { headers?: Record<string, unknown>; content: Record<string, { examples: Record<string, { value: { code: number } }> }> };
      expect({ path: op.path, statuses: Object.keys(op.responses) }).toEqual({ path: op.path, statuses: expect.arrayContaining(['401', '429', '503']) });
      expect(tooMany.headers).toHaveProperty('Retry-After');
      expect(Object.values(tooMany.content['application/json']?.examples ?? {}).map((e) => e.value.code)).toContain(1600);
    }
  });

  it('the admin documents need the admin token everywhere', () => {
    for (const op of operationsOf(documents.admin)) {
      expect({ path: op.path, security: op.security }).toEqual({ path: op.path, security: [{ adminToken: [] }] });
      expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['401', '503']));
    }
  });

  it('are JSON Schema 2020-12: no `nullable` left from the decorators', () => {
    for (const listener of LISTENERS) expect(serializeDocument(documents[listener])).not.toContain('"nullable"');
  });
});
