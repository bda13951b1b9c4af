import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { launchHeadlessChromium, renderedDom, type HeadlessBrowser } from './headless-browser';

/** A page whose content only a script makes, late; and one whose policy refuses its own script. */
const PAGES: Record<string, { status: number; headers?: Record<string, string>; body: string }> = {
  '/late': {
    status: 200,
    body: `<!doctype html><html><head><title>Late</title></head><body><p id="before">static</p>
<script>setTimeout(() => { const p = document.createElement('p'); p.id = 'rendered'; p.textContent = 'made by script'; document.body.append(p); }, 300);</script></body></html>`,
  },
  '/strict': {
    status: 403,
    headers: { 'content-security-policy': "default-src 'none'" },
    body: `<!doctype html><html><head><title>Strict</title></head><body><p id="only">no scripts here</p><script>document.title = 'ran';</script></body></html>`,
  },
};

function site(): Server {
  return createServer((req, res) => {
    // Behind basic authentication (user any, password "secret"), as the gateway's admin docs are.
    if (req.url === '/private') {
      const password = Buffer.from((req.headers.authorization ?? '').replace(/^Basic /, ''), 'base64').toString('utf8').split(':')[1];
      if (password !== 'secret') return void res.writeHead(401, { 'www-authenticate': 'Basic realm="private"' }).end();
      return void res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Private</title><p id="inside">inside</p>');
    }
    const page = PAGES[req.url ?? ''];
    if (!page) return void res.writeHead(404).end();
    res.writeHead(page.status, { 'content-type': 'text/html; charset=utf-8', ...page.headers }).end(page.body);
  });
}

describe('headless Chromium', () => {
  const server = site();
  let base: string;
  let browser: HeadlessBrowser;
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await launchHeadlessChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => server.close(resolve));
  });

  it('waits for what a script renders, then returns the DOM and the visible text', async () => {
    const page = await renderedDom(`${base}/late`, { waitForSelector: '#rendered' });
    expect(page.status).toBe(200);
    expect(page.title).toBe('Late');
    expect(page.dom).toMatch(/^<!DOCTYPE html><html>/);
    expect(page.dom).toContain('<p id="rendered">made by script</p>');
    expect(page.visibleText).toBe('static\n\nmade by script');
    expect(page.errors).toEqual([]);
  });

  it('reports the status of an error page and what the page refused to run', async () => {
    const page = await browser.render(`${base}/strict`, { waitForSelector: '#only' });
    expect(page.status).toBe(403);
    expect(page.title).toBe('Strict');
    expect(page.errors.join('\n')).toMatch(/Content Security Policy/);
  });

  it('answers a basic-authentication challenge with the credentials it was given, and only then', async () => {
    const inside = await browser.render(`${base}/private`, { waitForSelector: '#inside', httpCredentials: { username: 'operator', password: 'secret' } });
    expect({ status: inside.status, title: inside.title }).toEqual({ status: 200, title: 'Private' });
    // Without them Chromium gives up on the challenge: no page at all.
    await expect(browser.render(`${base}/private`)).rejects.toThrow(/ERR_INVALID_AUTH_CREDENTIALS/);
  });

  it('fails when the selector never shows', async () => {
    await expect(browser.render(`${base}/late`, { waitForSelector: '#never', timeoutMs: 1000 })).rejects.toThrow(/#never/);
  });
});
