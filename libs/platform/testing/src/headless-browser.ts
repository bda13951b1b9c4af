import { existsSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';

/** Debian's chromium, installed by tools/scripts/ensure-chromium.sh (Playwright's own builds are never downloaded). */
export const CHROMIUM_PATH = '/usr/bin/chromium';

/**
 * Beside --headless (Playwright's `headless`) and a new empty profile (Playwright makes one per
 * launch): without these Chromium keeps trying to reach Google's hosts, which a closed network
 * refuses many times a second. --no-sandbox because the tests run as root.
 */
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface RenderOptions {
  /** A CSS selector to wait for (visible) before the DOM is read: content a script renders, or a page a reload brings. */
  readonly waitForSelector?: string;
  /** For the navigation and for the selector each; 15 s by default. */
  readonly timeoutMs?: number;
  /** Basic-authentication credentials the page's context answers a challenge with, as a person would type them in. */
  readonly httpCredentials?: { readonly username: string; readonly password: string };
}

/** What a page looked like once rendered. */
export interface RenderedPage {
  /** The HTTP status of the document (undefined for a URL without one, such as about:blank). */
  readonly status: number | undefined;
  /** The rendered DOM, serialised (`document.documentElement.outerHTML` with its doctype). */
  readonly dom: string;
  /** `document.body.innerText`: the text a person sees, without markup, styles or hidden elements. */
  readonly visibleText: string;
  readonly title: string;
  /** Console errors and uncaught exceptions of the page, Content-Security-Policy refusals among them. */
  readonly errors: readonly string[];
}

/** A page kept open, for pages that change by themselves (scripts, reloads). */
export interface OpenPage {
  readonly status: number | undefined;
  /** Resolves once the selector matches a visible element, across the page's own reloads. */
  waitForSelector(selector: string, timeoutMs?: number): Promise<void>;
  /** The page as it is now. */
  snapshot(): Promise<RenderedPage>;
  close(): Promise<void>;
}

export interface HeadlessBrowser {
  /** Opens the URL, waits for the selector if one is given, and keeps the page open. */
  open(url: string, options?: RenderOptions): Promise<OpenPage>;
  /** Opens the URL, waits for the selector if one is given, reads the page and closes it. */
  render(url: string, options?: RenderOptions): Promise<RenderedPage>;
  close(): Promise<void>;
}

const DEFAULT_TIMEOUT_MS = 15_000;

/** Starts headless Chromium; one per test file is enough, each page gets a context of its own (no shared cookies). */
export async function launchHeadlessChromium(): Promise<HeadlessBrowser> {
  if (!existsSync(CHROMIUM_PATH)) throw new Error(`${CHROMIUM_PATH} is missing: run \`bash tools/scripts/ensure-chromium.sh\` (npm test does)`);
  // Loaded here, not at the top: every test file imports this library, few of them open a browser.
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS, timeout: 60_000 });
  const open = (url: string, options: RenderOptions = {}) => openPage(browser, url, options);
  return {
    open,
    async render(url, options) {
      const page = await open(url, options);
      try {
        return await page.snapshot();
      } finally {
        await page.close();
      }
    },
    close: () => browser.close(),
  };
}

/** One page, one browser: for a test that needs a single look. */
export async function renderedDom(url: string, options: RenderOptions = {}): Promise<RenderedPage> {
  const browser = await launchHeadlessChromium();
  try {
    return await browser.render(url, options);
  } finally {
    await browser.close();
  }
}

async function openPage(browser: Browser, url: string, options: RenderOptions): Promise<OpenPage> {
  const timeout = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const context = await browser.newContext(options.httpCredentials ? { httpCredentials: { ...options.httpCredentials } } : {});
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (message) => {
    // The browser asks every site for /favicon.ico by itself: its 404 is not the page's error.
    if (message.type() === 'error' && !message.location().url.endsWith('/favicon.ico')) errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  try {
    // The status of the document shown now: a page that reloads itself may answer differently.
    let status: number | undefined;
    page.on('response', (response) => {
      if (response.request().isNavigationRequest() && response.frame() === page.mainFrame()) status = response.status();
    });
    const response = await page.goto(url, { waitUntil: 'load', timeout });
    status = response?.status() ?? status;
    const opened: OpenPage = {
      get status() {
        return status;
      },
      async waitForSelector(selector, timeoutMs = timeout) {
        await page.waitForSelector(selector, { state: 'visible', timeout: timeoutMs });
      },
      snapshot: () => snapshot(page, () => status, errors),
      close: () => context.close(),
    };
    if (options.waitForSelector) await opened.waitForSelector(options.waitForSelector);
    return opened;
  } catch (error) {
    await context.close();
    throw error;
  }
}

// Runs in the page. A string, because the type check here knows Node's globals, not the DOM's.
const READ_PAGE = `(() => ({
  dom: (document.doctype ? '<!DOCTYPE ' + document.doctype.name + '>' : '') + document.documentElement.outerHTML,
  visibleText: document.body ? document.body.innerText : '',
  title: document.title,
}))()`;

/**
 * Reads the page in one evaluation, so the DOM, the text and the title are of the same document.
 * A page that reloads itself may be between two documents at that moment: then it reads again.
 */
async function snapshot(page: Page, status: () => number | undefined, errors: readonly string[]): Promise<RenderedPage> {
  for (let attempt = 1; ; attempt++) {
    try {
      await page.waitForLoadState('load');
      const read = await page.evaluate<{ dom: string; visibleText: string; title: string }>(READ_PAGE);
      return { status: status(), ...read, errors: [...errors] };
    } catch (error) {
      if (attempt >= 3 || !/context was destroyed|navigat/i.test(String(error))) throw error;
    }
  }
}
