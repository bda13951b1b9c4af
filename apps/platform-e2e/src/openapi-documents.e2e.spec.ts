import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { launchHeadlessChromium, type HeadlessBrowser, type RunningStack } from '@seed/platform-testing';
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

    // Found by fuzzing the documents: these answered 404 "no such endpoint", and GET of
    // .../messages/batch reached GET .../messages/{umid} ("no such message").
    it('answers a method a documented path does not have with 405, Allow listing the documented ones', async () => {
      const document = JSON.parse(committed(listener)) as { paths: Record<string, Record<string, unknown>> };
      for (const [template, item] of Object.entries(document.paths)) {
        const path = template.replace(/\{([^}]+)\}/g, (_m, name: string) => (name === 'umid' ? 'batch' : 'x1234567'));
        const documented = Object.keys(item).filter((key) => METHODS.includes(key));
        const concrete = template.replace('{umid}', 'batch');
        // .../messages/{umid} with umid "batch" is the concrete path .../messages/batch: its methods are that path's.
        const expected = (document.paths[concrete] && concrete !== template ? Object.keys(document.paths[concrete]).filter((key) => METHODS.includes(key)) : documented).map((m) => m.toUpperCase());
        const allow = [...expected, ...(expected.includes('GET') ? ['HEAD'] : [])].sort().join(', ');
        for (const method of [...METHODS, 'options'].filter((m) => !expected.includes(m.toUpperCase()))) {
          const res = await fetch(`${baseOf(listener)}${path}`, { method: method.toUpperCase() });
          expect({ method, path, allow: res.headers.get('allow') }).toEqual({ method, path, allow });
          await expectApiError(res, 405, 1000);
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

  describe('Swagger UI in headless Chromium', () => {
    let browser: HeadlessBrowser;
    beforeAll(async () => {
      browser = await launchHeadlessChromium();
    });
    afterAll(() => browser?.close());

    /** What Swagger UI rendered of each operation: its method and its path, as the DOM shows them. */
    const operationsShown = (dom: string): string[] =>
      [...dom.matchAll(/class="opblock-summary-method">([A-Z]+)<\/span>.*?class="opblock-summary-path" data-path="([^"]+)"/g)].map((m) => `${m[1]} ${m[2]}`).sort();
    const operationsOf = (listener: Listener): string[] => {
      const document = JSON.parse(committed(listener)) as { paths: Record<string, Record<string, unknown>> };
      return Object.entries(document.paths)
        .flatMap(([path, item]) => Object.keys(item).filter((key) => METHODS.includes(key)).map((method) => `${method.toUpperCase()} ${path}`))
        .sort();
    };

    it.each(LISTENERS)('%s listener: /docs loads the document and lists every operation, without a console error', async (listener) => {
      const document = JSON.parse(committed(listener)) as { info: { title: string; version: string } };
      // The admin docs ask the browser for basic credentials: any user name, the admin token as password.
      const httpCredentials = listener === 'admin' ? { username: 'operator', password: stack.adminToken } : undefined;
      const page = await browser.render(`${baseOf(listener)}/docs`, { waitForSelector: '.opblock-summary-path', ...(httpCredentials ? { httpCredentials } : {}) });
      expect(page.status).toBe(200);
      expect(page.errors).toEqual([]);
      expect(page.title).toBe(document.info.title);
      expect(page.dom).toMatch(new RegExp(`<h1 class="title">${document.info.title}<span><small><pre class="version">\\s*${document.info.version.replace(/\./g, '\\.')}\\s*</pre>`));
      expect(page.dom).toContain('class="btn authorize unlocked"');
      expect(operationsShown(page.dom)).toEqual(operationsOf(listener));
    });
  });

  it('keeps the public listeners public: no credentials needed for their documents', async () => {
    for (const listener of ['messaging', 'agent'] as const) {
      expect((await fetch(`${baseOf(listener)}/openapi.json`)).status).toBe(200);
      expect((await fetch(`${baseOf(listener)}/docs`)).status).toBe(200);
    }
  });
});
