import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunningStack } from '@seed/platform-testing';
import { expectApiError } from './support/http';
import { useStack } from './support/stack';

type Listener = 'messaging' | 'agent' | 'admin';
const LISTENERS: readonly Listener[] = ['messaging', 'agent', 'admin'];
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

/** The committed copies `npm run openapi` writes; the running gateway must serve exactly these. */
const committed = (listener: Listener): string => readFileSync(join(__dirname, '../../../docs/openapi', `${listener}.json`), 'utf8');

/** Each listener's API documents and Swagger UI, as a client and a browser fetch them. */
describe('OpenAPI documents and Swagger UI per listener', () => {
  const ctx = useStack();
  let stack: RunningStack;
  beforeAll(() => {
    ({ stack } = ctx);
  });

  const baseOf = (listener: Listener): string => ({ messaging: stack.messagingUrl, agent: stack.agentUrl, admin: stack.adminUrl })[listener];
  /** The admin listener's docs need its token; the others are public. */
  const get = (listener: Listener, path: string, headers: Record<string, string> = {}): Promise<Response> =>
    fetch(`${baseOf(listener)}${path}`, { headers: listener === 'admin' ? { authorization: `Bearer ${stack.adminToken}`, ...headers } : headers });

  describe.each(LISTENERS)('%s listener', (listener) => {
    it('serves at /openapi.json exactly the committed docs/openapi document', async () => {
      const res = await get(listener, '/openapi.json');
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      const text = await res.text();
      expect(JSON.parse(text)).toEqual(JSON.parse(committed(listener)));
      expect(text).toBe(committed(listener));
    });

    it('answers every documented operation (no "no such endpoint"), and no other listener does', async () => {
      const document = JSON.parse(committed(listener)) as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
      for (const [template, item] of Object.entries(document.paths)) {
        const path = template.replace(/\{[^}]+\}/g, 'x1234567');
        for (const method of Object.keys(item).filter((key) => METHODS.includes(key))) {
          // Every operation needs a key, a token or a valid guest link: without one it answers its documented 401.
          const res = await fetch(`${baseOf(listener)}${path}`, { method: method.toUpperCase() });
          expect({ method, template, status: res.status, documented: Object.keys(item[method]?.responses ?? {}).includes(String(res.status)) }).toEqual({
            method,
            template,
            status: 401,
            documented: true,
          });
          for (const other of LISTENERS.filter((l) => l !== listener)) {
            await expectApiError(await fetch(`${baseOf(other)}${path}`, { method: method.toUpperCase() }), 404, 1300);
          }
        }
      }
    });

    it('serves Swagger UI at /docs with every file it loads', async () => {
      for (const page of ['/docs', '/docs/']) {
        const res = await get(listener, page);
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toMatch(/^text\/html/);
        expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
        const html = await res.text();
        expect(html).toContain('<div id="swagger-ui"></div>');
        const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1] as string);
        expect(assets).toEqual(expect.arrayContaining(['/docs/swagger-ui.css', '/docs/swagger-ui-bundle.js', '/docs/swagger-initializer.js']));
        for (const asset of assets) {
          const file = await get(listener, asset);
          expect({ asset, status: file.status }).toEqual({ asset, status: 200 });
          const type = file.headers.get('content-type') ?? '';
          if (asset.endsWith('.js')) expect(type).toMatch(/javascript/);
          if (asset.endsWith('.css')) expect(type).toMatch(/^text\/css/);
          if (asset.endsWith('.png')) expect(type).toMatch(/^image\/png/);
          expect((await file.arrayBuffer()).byteLength).toBeGreaterThan(0);
        }
      }
      const initializer = await (await get(listener, '/docs/swagger-initializer.js')).text();
      expect(initializer).toContain("url: '/openapi.json'");
    });

    it('answers 404 in the contract shape for a file Swagger UI does not need', async () => {
      await expectApiError(await get(listener, '/docs/index.html.map'), 404, 1300);
      await expectApiError(await get(listener, '/docs/../package.json'), 404, 1300);
    });
  });

  describe('admin listener', () => {
    it.each([
      ['no token', {}],
      ['a wrong bearer token', { authorization: 'Bearer not-the-operator-secret-at-all' }],
      ['a wrong basic password', { authorization: `Basic ${Buffer.from('admin:not-the-operator-secret').toString('base64')}` }],
    ])('refuses /openapi.json and /docs with %s: 401 in the contract shape, asking the browser for basic credentials', async (_name, headers: Record<string, string>) => {
      for (const path of ['/openapi.json', '/docs', '/docs/swagger-ui-bundle.js']) {
        const res = await fetch(`${stack.adminUrl}${path}`, { headers });
        expect(res.headers.get('www-authenticate')).toMatch(/^Basic realm="/);
        await expectApiError(res, 401, 1200);
      }
    });

    it('accepts the token as the password of basic authentication, as a browser sends it', async () => {
      const basic = { authorization: `Basic ${Buffer.from(`operator:${stack.adminToken}`).toString('base64')}` };
      const document = await fetch(`${stack.adminUrl}/openapi.json`, { headers: basic });
      expect(document.status).toBe(200);
      expect(await document.text()).toBe(committed('admin'));
      expect((await fetch(`${stack.adminUrl}/docs`, { headers: basic })).status).toBe(200);
    });

    it('keeps the API itself behind the bearer token only', async () => {
      const basic = { authorization: `Basic ${Buffer.from(`operator:${stack.adminToken}`).toString('base64')}` };
      await expectApiError(await fetch(`${stack.adminUrl}/admin/v1/accounts/acme`, { headers: basic }), 401, 1200);
    });
  });

  it('keeps the public listeners public: no credentials needed for their documents', async () => {
    for (const listener of ['messaging', 'agent'] as const) {
      expect((await fetch(`${baseOf(listener)}/openapi.json`)).status).toBe(200);
      expect((await fetch(`${baseOf(listener)}/docs`)).status).toBe(200);
    }
  });
});
