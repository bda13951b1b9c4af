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

  it('fails when the selector never shows', async () => {
    await expect(browser.render(`${base}/late`, { waitForSelector: '#never', timeoutMs: 1000 })).rejects.toThrow(/#never/);
  });
});
