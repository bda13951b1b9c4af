import { createServer, type IncomingMessage, type Server } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { runSchemathesis, type SchemathesisRun } from './schemathesis';

const json = (schema: object) => ({ 'application/json': { schema } });

/**
 * Two security schemes and an owner in the path: GET /ping (keyA), POST /owners/{ownerId}/names
 * (keyB; only owner `own1` exists, and names longer than 2 characters are refused although the
 * document allows 10), DELETE /names/{id}.
 */
const OPENAPI = {
  openapi: '3.0.3',
  info: { title: 'options target', version: '1' },
  components: { securitySchemes: { keyA: { type: 'http', scheme: 'bearer' }, keyB: { type: 'http', scheme: 'bearer' } } },
  paths: {
    '/ping': { get: { operationId: 'ping', security: [{ keyA: [] }], responses: { '200': { description: 'alive', content: json({ type: 'object' }) }, '401': { description: 'no key' } } } },
    '/owners/{ownerId}/names': {
      post: {
        operationId: 'addName',
        security: [{ keyB: [] }],
        parameters: [{ name: 'ownerId', in: 'path', required: true, schema: { type: 'string' } }],
        requestBody: { required: true, content: json({ type: 'object', properties: { name: { type: 'string', maxLength: 10 } }, required: ['name'], additionalProperties: false }) },
        responses: { '201': { description: 'added' }, '400': { description: 'refused' }, '401': { description: 'no key' }, '404': { description: 'no such owner' }, '415': { description: 'not JSON' } },
      },
    },
    '/names/{id}': {
      delete: { operationId: 'deleteName', parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }], responses: { '204': { description: 'gone' }, '404': { description: 'no such name' } } },
    },
  },
};

interface Seen {
  method: string;
  path: string;
  authorization: string | undefined;
  status: number;
}

function target(seen: Seen[]): Server {
  return createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://localhost').pathname;
      const answer = (status: number, body = '') => {
        seen.push({ method: req.method ?? '', path, authorization: req.headers.authorization, status });
        res.writeHead(status, body ? { 'content-type': 'application/json' } : {}).end(body);
      };
      const owner = /^\/owners\/([^/]+)\/names$/.exec(path)?.[1];
      const key = req.headers.authorization;
      if (req.method === 'GET' && path === '/ping') return key === 'Bearer token-a' ? answer(200, '{}') : answer(401);
      if (req.method === 'DELETE' && path.startsWith('/names/')) return answer(404);
      if (req.method !== 'POST' || owner === undefined) return answer(404);
      if (key !== 'Bearer token-b') return answer(401);
      if (!/^application\/json/.test(req.headers['content-type'] ?? '')) return answer(415);
      if (owner !== 'own1') return answer(404);
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
        const valid = typeof body === 'object' && body !== null && typeof body['name'] === 'string' && Object.keys(body).length === 1;
        return answer(valid && (body['name'] as string).length <= 2 ? 201 : 400);
      } catch {
        return answer(400);
      }
    });
  });
}

describe('runSchemathesis options: credentials per scheme, fixed path parameters, invalid-only passes', () => {
  const seen: Seen[] = [];
  const server = target(seen);
  const dir = mkdtempSync(join(tmpdir(), 'seed-openapi-'));
  const schemaPath = join(dir, 'openapi.json');
  let run: (overrides: Partial<SchemathesisRun>) => ReturnType<typeof runSchemathesis>;

  beforeAll(async () => {
    writeFileSync(schemaPath, JSON.stringify(OPENAPI));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    run = (overrides) =>
      runSchemathesis({
        schemaPath,
        baseUrl,
        bearerTokens: { keyA: 'token-a', keyB: 'token-b' },
        pathParameters: { ownerId: 'own1' },
        maxExamples: 15,
        mode: 'positive',
        checks: ['not_a_server_error'],
        seed: 11,
        ...overrides,
      });
  });
  beforeEach(() => seen.splice(0));
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  it('sends each scheme its own token and the fixed path parameter; an excluded operation is never called', async () => {
    const result = await run({ excludeOperationIds: ['deleteName'] });
    expect(result.exitCode).toBe(0);
    expect(result.operationsTested).toBe(2);
    const ping = seen.filter((s) => s.path === '/ping');
    const names = seen.filter((s) => s.path.startsWith('/owners/'));
    expect(ping.length).toBeGreaterThan(0);
    expect(names.length).toBeGreaterThan(0);
    expect(new Set(ping.map((s) => s.authorization))).toEqual(new Set(['Bearer token-a']));
    expect(new Set(names.map((s) => s.authorization))).toEqual(new Set(['Bearer token-b']));
    expect(new Set(names.map((s) => s.path))).toEqual(new Set(['/owners/own1/names']));
    expect(seen.some((s) => s.path.startsWith('/names/'))).toBe(false);
    expect(result.statuses['201']).toBeGreaterThan(0);
  });

  it('a check turned off for one operation is not run there, and still is elsewhere', async () => {
    const checks = ['positive_data_acceptance'] as const;
    const on = await run({ checks, excludeOperationIds: ['deleteName'] });
    expect(on.failures).toEqual([expect.objectContaining({ code: 'ST202', operations: ['POST /owners/{ownerId}/names'] })]);
    const off = await run({ checks, excludeOperationIds: ['deleteName'], checksOff: { addName: ['positive_data_acceptance'] } });
    expect({ exitCode: off.exitCode, failures: off.failures }).toEqual({ exitCode: 0, failures: [] });
  });

  it('invalid only: no valid request reaches the API, where --mode negative alone sends some', async () => {
    await run({ mode: 'negative', phases: ['coverage', 'fuzzing'], excludeOperationIds: ['deleteName'] });
    // GET /ping has nothing to make invalid, so negative mode sends it valid.
    expect(seen.filter((s) => s.status < 400).length).toBeGreaterThan(0);
    seen.splice(0);
    const invalid = await run({ mode: 'negative', invalidOnly: true, phases: ['coverage', 'fuzzing'], excludeOperationIds: ['deleteName'] });
    expect(invalid.requests).toBeGreaterThan(10);
    // Its own probes of the server (not in the report) are GETs of a path the API does not have.
    const operations = seen.filter((s) => !s.path.startsWith('/schemathesis-probe'));
    expect(operations.length).toBe(invalid.requests);
    expect(operations.filter((s) => s.status < 400)).toEqual([]);
    expect(Object.keys(invalid.statuses).every((status) => Number(status) >= 400)).toBe(true);
  });

  it('refuses an invalid-only pass that is not in negative mode', async () => {
    await expect(run({ mode: 'all', invalidOnly: true })).rejects.toThrow(/negative/);
  });
});
