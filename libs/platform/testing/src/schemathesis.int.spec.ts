import { createServer, type IncomingMessage, type Server } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { runSchemathesis, type SchemathesisRun } from './schemathesis';

/** Two operations: GET /ping answers as documented; POST /names crashes (500) on a body it did not expect. */
const OPENAPI = {
  openapi: '3.0.3', info: { title: 'fuzz target', version: '1' },
  paths: {
    '/ping': { get: { responses: { '200': { description: 'alive', content: { 'application/json': { schema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] } } } } } } },
    '/names': { post: { requestBody: { required: true, content: { 'application/json': { schema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } } } }, responses: { '201': { description: 'created' }, '400': { description: 'refused' } } } },
  },
};

/** What the server was sent, to compare with what the helper reports. */
interface Seen {
  method: string;
  path: string;
  authorization: string | undefined;
}

function fuzzTarget(seen: Seen[]): Server {
  return createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://localhost').pathname;
      seen.push({ method: req.method ?? '', path, authorization: req.headers.authorization });
      if (req.method === 'GET' && path === '/ping') {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      } else if (req.method === 'POST' && path === '/names') {
        try {
          const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { name?: unknown };
          if (typeof body.name !== 'string') throw new TypeError('name is not a string');
          res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ name: body.name }));
        } catch {
          res.writeHead(500).end('crashed'); // the bug the fuzz run is to find
        }
      } else {
        res.writeHead(404).end();
      }
    });
  });
}

describe('runSchemathesis against a local API', () => {
  const seen: Seen[] = [];
  const server = fuzzTarget(seen);
  const dir = mkdtempSync(join(tmpdir(), 'seed-openapi-'));
  const schemaPath = join(dir, 'openapi.json');
  let run: (overrides: Partial<SchemathesisRun>) => ReturnType<typeof runSchemathesis>;

  beforeAll(async () => {
    writeFileSync(schemaPath, JSON.stringify(OPENAPI));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    run = (overrides) =>
      runSchemathesis({ schemaPath, baseUrl, headers: { Authorization: 'Bearer sk_fuzz' }, maxExamples: 20, mode: 'positive', checks: ['not_a_server_error'], seed: 7, ...overrides });
  });
  beforeEach(() => seen.splice(0));
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  it('valid inputs only: every operation tested, no failure, the requests counted and authorised', async () => {
    const result = await run({ mode: 'positive' });
    expect({ exitCode: result.exitCode, failures: result.failures, failuresText: result.failuresText }).toEqual({ exitCode: 0, failures: [], failuresText: '' });
    expect(result.operationsTested).toBe(2);
    expect(result.testCases).toBeGreaterThan(2);
    expect(result.requests).toBeGreaterThanOrEqual(result.testCases);
    // The server also saw its probes (what the API accepts), which the report leaves out.
    const operations = seen.filter((s) => s.path === '/ping' || s.path === '/names');
    expect(operations.length).toBe(result.requests);
    expect(operations.every((s) => s.authorization === 'Bearer sk_fuzz')).toBe(true);
    expect(operations.some((s) => s.method === 'POST')).toBe(true);
  });

  it('invalid inputs: the 500 is reported as a server error of POST /names, with a way to reproduce it', async () => {
    const result = await run({ mode: 'negative' });
    expect(result.exitCode).toBe(1);
    expect(result.failures).toEqual([expect.objectContaining({ code: 'ST101', title: 'Server error', operations: ['POST /names'] })]);
    expect(result.failuresText).toContain('POST /names');
    expect(result.failuresText).toContain('[500] Internal Server Error');
    expect(result.failuresText).toMatch(/curl -X POST .*\/names/);
    // Its output hides the credentials it was given.
    expect(result.output).not.toContain('sk_fuzz');
    expect(seen.some((s) => s.method === 'POST' && s.path === '/names')).toBe(true);
  });

  it('a budget of examples bounds the test cases; a check not asked for is not run', async () => {
    const small = await run({ mode: 'all', maxExamples: 2, checks: ['response_headers_conformance'] });
    const large = await run({ mode: 'all', maxExamples: 40, checks: ['response_headers_conformance'] });
    expect(small.testCases).toBeLessThan(large.testCases);
    // The 500s are still there, but only not_a_server_error calls them failures.
    expect(small.failures).toEqual([]);
    expect(small.exitCode).toBe(0);
  });

  it('an API that does not answer: errors, and the text says why', async () => {
    const result = await run({ baseUrl: 'http://127.0.0.1:9', maxExamples: 2, requestTimeoutSeconds: 2 });
    expect(result.exitCode).toBe(1);
    expect(result.errors).toBeGreaterThan(0);
    expect(result.failuresText).toMatch(/Network Error|Connection/i);
  });
});
