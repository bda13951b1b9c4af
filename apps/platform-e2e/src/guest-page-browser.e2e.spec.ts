import { launchHeadlessChromium, type HeadlessBrowser, type OpenPage, type RunningStack } from '@seed/platform-testing';
import { createToken, logIn, useAgentStack } from './support/agent';
import type { Account } from './support/http';

/** Rooms wait 12 s for their agent: long enough to join one in time, short enough to watch one expire. */
const ROOM_SECONDS = 12;
/** The waiting page reloads itself this often (guest-page.html.ts). */
const REFRESH_SECONDS = 5;

/**
 * The guest link opened in headless Chromium, as the guest's phone would: what the page shows, and
 * that it follows the room by itself while it stays open.
 */
describe('the guest page in a browser', () => {
  const ctx = useAgentStack({ ROOM_VALIDITY_SECONDS: String(ROOM_SECONDS) });
  let stack: RunningStack;
  let account: Account;
  let browser: HeadlessBrowser;
  beforeAll(async () => {
    ({ stack, account } = ctx);
    browser = await launchHeadlessChromium();
  });
  afterAll(() => browser?.close());

  /** Opens the room's guest link, waiting until the page shows the room waiting for its agent. */
  async function openWaitingRoom(callReference: string): Promise<{ page: OpenPage; authToken: string }> {
    const token = await createToken(stack, account.apiKey, { create_room: true, call_reference: callReference });
    const page = await browser.open(token.guest_link as string, { waitForSelector: '.state[data-state="waiting"]' });
    return { page, authToken: token.auth_token };
  }

  it('shows the guest the room waiting for its agent, then the agent joined, without a reload by hand', async () => {
    const { page, authToken } = await openWaitingRoom('browser-ref-01');
    try {
      const waiting = await page.snapshot();
      expect(waiting.status).toBe(200);
      expect(waiting.title).toBe('Waiting for the agent');
      expect(waiting.visibleText).toContain('Waiting for the agent');
      expect(waiting.visibleText).toContain('Your agent has not joined yet. This page updates by itself; please keep it open.');
      expect(waiting.visibleText).toContain('Call reference: browser-ref-01');
      // The page's Content-Security-Policy refuses nothing the page uses.
      expect(waiting.errors).toEqual([]);

      await logIn(stack, authToken);
      await page.waitForSelector('.state[data-state="agent_joined"]', (REFRESH_SECONDS + 10) * 1000);
      const joined = await page.snapshot();
      expect(joined.status).toBe(200);
      expect(joined.title).toBe('The agent has joined');
      expect(joined.visibleText).toContain('Your agent is in the room and ready for your call.');
      expect(joined.visibleText).toContain('Call reference: browser-ref-01');
      expect(joined.visibleText).not.toContain('Waiting for the agent');
      // Nothing left to wait for: the page stops reloading.
      expect(joined.dom).not.toContain('http-equiv="refresh"');
      expect(joined.errors).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('turns a page left open into the expired room once no agent joined in time', async () => {
    const { page } = await openWaitingRoom('browser-ref-02');
    try {
      await page.waitForSelector('.state[data-state="expired"]', (ROOM_SECONDS + REFRESH_SECONDS + 15) * 1000);
      const expired = await page.snapshot();
      expect(expired.status).toBe(200);
      expect(expired.title).toBe('This room has expired');
      expect(expired.visibleText).toContain('No agent joined in time. Please ask for a new link.');
      expect(expired.visibleText).toContain('Call reference: browser-ref-02');
      expect(expired.dom).not.toContain('http-equiv="refresh"');
    } finally {
      await page.close();
    }
  });

  it('shows a link that is not valid as such, and no room', async () => {
    const token = await createToken(stack, account.apiKey, { create_room: true, call_reference: 'browser-ref-03' });
    const link = new URL(token.guest_link as string);
    // One character of the MAC changed: the first, since the last one also carries padding bits.
    const [kid, room, mac = ''] = link.pathname.replace(/^\/guest\//, '').split('.');
    const tampered = `${link.origin}/guest/${kid}.${room}.${mac.startsWith('A') ? 'B' : 'A'}${mac.slice(1)}`;
    const malformed = `${link.origin}/guest/${'x'.repeat(201)}`;

    for (const url of [tampered, malformed]) {
      const page = await browser.render(url, { waitForSelector: '.state[data-state="invalid"]' });
      expect(page.status).toBe(401);
      expect(page.title).toBe('This link is not valid');
      expect(page.visibleText).toContain('The link may be mistyped or too old. Please ask for a new link.');
      expect(page.visibleText).not.toContain('Call reference');
      expect(page.visibleText).not.toContain('browser-ref-03');
    }
  });
});
