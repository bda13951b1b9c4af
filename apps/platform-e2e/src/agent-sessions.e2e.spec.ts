import { eventually, type RunningStack } from '@seed/platform-testing';
import { AgentTokenDb, useAgentStack, createToken, guestRoom, jwtPart, logIn, openGuestLink, postSession } from './support/agent';
import { expectApiError, ukMobile, type Account } from './support/http';
import { consumeUntil } from './support/kafka';
import { smsc } from './support/smsc';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Agents log in with their token; the first login sends the guest link by SMS; the guest page shows the room. */
describe('agent login, guest-link SMS and guest page', () => {
  const ctx = useAgentStack();
  let stack: RunningStack;
  let db: AgentTokenDb;
  let account: Account;
  beforeAll(() => ({ stack, db, account } = ctx));

  describe('POST /api/v1/sessions', () => {
    it('answers who the agent is and the room, and sends the guest link by SMS on the first login only', async () => {
      const phone = ukMobile(6001);
      const token = await createToken(stack, account.apiKey, { create_room: true, call_reference: 'login-sms-001', phone_number: `+${phone}` });
      const claims = jwtPart(token.auth_token, 1);

      const session = await logIn(stack, token.auth_token);
      expect(session).toEqual({
        agent: { agent_id: claims['sub'], account_id: account.accountId, expires_at: new Date((claims['exp'] as number) * 1000).toISOString() },
        room: { call_reference: 'login-sms-001', guest_link: token.guest_link, state: 'agent_joined', expires_at: expect.any(String), guest_link_sms: true },
      });

      // What the carrier received: the real text with the very link of the token response.
      const sms = await smsc(stack.smscUrl).only(phone);
      expect(sms.text).toBe(`Join your video call: ${token.guest_link}`);
      expect(sms.parts).toBe(1);

      // A second login answers the same and sends nothing more.
      expect(await logIn(stack, token.auth_token)).toEqual(session);
      await sleep(1500);
      expect(await smsc(stack.smscUrl).messages(phone)).toHaveLength(1);

      // sms-batch's events hold the redacted text only; the room records the umid.
      const roomId = claims['room'] as string;
      const sent = await eventually(async () => (await db.events(`type = 'GuestLinkSent' AND data->>'roomId' = $1`, [roomId]))[0]);
      expect(sent.data).toMatchObject({ roomId, destination: phone, status: 'QUEUED' });
      const queued = await ctx.smsBatch.query<{ text: string; client_batch_id: string; sub_account_id: string }>(
        `SELECT data->>'text' AS text, data->>'clientBatchId' AS client_batch_id, data->>'subAccountId' AS sub_account_id
           FROM ${ctx.smsBatch.table('events')} WHERE type = 'MessageQueued' AND data->>'umid' = $1`,
        [sent.data['umid']],
      );
      expect(queued).toHaveLength(1);
      expect(queued[0]).toMatchObject({ client_batch_id: `guest-link-${roomId}`, sub_account_id: account.subAccountId });
      expect(queued[0]?.text).toMatch(/^Join your video call: http:\/\/127\.0\.0\.1:\d+\/guest\/\[guest-token\]$/);
      expect(queued[0]?.text).not.toContain(token.guest_link);
    });

    it('sends exactly one SMS when several logins race', async () => {
      const phone = ukMobile(6002);
      const token = await createToken(stack, account.apiKey, { create_room: true, phone_number: `+${phone}` });
      const answers = await Promise.all(Array.from({ length: 6 }, () => postSession(stack, token.auth_token)));
      expect(answers.map((r) => r.status)).toEqual(Array(6).fill(200));
      const sms = await smsc(stack.smscUrl).only(phone);
      expect(sms.text).toContain(token.guest_link);
      await sleep(1500);
      expect(await smsc(stack.smscUrl).messages(phone)).toHaveLength(1);
      const roomId = jwtPart(token.auth_token, 1)['room'];
      expect(await db.events(`type = 'AgentLoggedIn' AND data->>'roomId' = $1`, [roomId])).toHaveLength(1);
    });

    it('sends no SMS for a room without a phone number; a token without a room has no room', async () => {
      const withRoom = await createToken(stack, account.apiKey, { create_room: true, call_reference: 'no-phone-0001' });
      const session = await logIn(stack, withRoom.auth_token);
      expect(session.room).toMatchObject({ call_reference: 'no-phone-0001', state: 'agent_joined', guest_link_sms: false });
      const bare = await createToken(stack, account.apiKey);
      expect((await logIn(stack, bare.auth_token)).room).toBeNull();
      await sleep(1000);
      const roomId = jwtPart(withRoom.auth_token, 1)['room'];
      expect(await db.events(`type = 'GuestLinkSent' AND data->>'roomId' = $1`, [roomId])).toHaveLength(0);
    });

    it('refuses a tampered, foreign or missing token, and a guest token or an API key in its place: 401, 1200, nothing recorded', async () => {
      const token = await createToken(stack, account.apiKey, { create_room: true, phone_number: `+${ukMobile(6003)}` });
      const [h, p, s] = token.auth_token.split('.') as [string, string, string];
      const forgedPayload = Buffer.from(JSON.stringify({ ...jwtPart(token.auth_token, 1), acc: 'someone-else' })).toString('base64url');
      const guestToken = new URL(token.guest_link as string).pathname.split('/').pop() as string;
      const before = await db.eventCount();
      for (const bad of [`${h}.${forgedPayload}.${s}`, `${h}.${p}.${s.slice(0, -3)}abc`, guestToken, account.apiKey, 'not-a-token', null]) {
        await expectApiError(await postSession(stack, bad), 401, 1200);
      }
      expect(await db.eventCount()).toBe(before);
      expect(await smsc(stack.smscUrl).messages(ukMobile(6003))).toHaveLength(0);
    });
  });

  describe('guest page', () => {
    it('shows waiting for the agent, then agent joined, as HTML and as JSON', async () => {
      const token = await createToken(stack, account.apiKey, { create_room: true, call_reference: 'guest-page-001' });
      const link = token.guest_link as string;

      const waiting = await openGuestLink(link);
      expect(waiting.status).toBe(200);
      expect(waiting.headers.get('content-type')).toMatch(/^text\/html/);
      expect(waiting.headers.get('cache-control')).toBe('no-store');
      expect(waiting.headers.get('referrer-policy')).toBe('no-referrer');
      const page = await waiting.text();
      expect(page).toContain('data-state="waiting"');
      expect(page).toContain('Waiting for the agent');
      expect(page).toContain('guest-page-001');
      expect(await guestRoom(link)).toEqual({ call_reference: 'guest-page-001', state: 'waiting', expires_at: expect.any(String) });

      await logIn(stack, token.auth_token);
      const joined = await (await openGuestLink(link)).text();
      expect(joined).toContain('data-state="agent_joined"');
      expect(joined).toContain('The agent has joined');
      expect((await guestRoom(link)).state).toBe('agent_joined');
    });

    it('refuses a link whose token is altered or is an agent token: a 401 page for browsers, the error body for JSON', async () => {
      const token = await createToken(stack, account.apiKey, { create_room: true });
      const link = token.guest_link as string;
      const tampered = `${link.slice(0, -4)}AAAA`;
      const asAgent = `${stack.agentUrl}/guest/${token.auth_token}`;
      for (const bad of [tampered, asAgent, `${stack.agentUrl}/guest/not-a-token`]) {
        const page = await openGuestLink(bad);
        expect(page.status).toBe(401);
        expect(page.headers.get('content-type')).toMatch(/^text\/html/);
        expect(await page.text()).toContain('This link is not valid');
        await expectApiError(await openGuestLink(bad, 'json'), 401, 1200);
      }
    });
  });

  it('publishes the room events on agent-token.events.v1, with no token and no guest link in them', async () => {
    const phone = ukMobile(6004);
    const token = await createToken(stack, account.apiKey, { create_room: true, phone_number: `+${phone}` });
    await logIn(stack, token.auth_token);
    const roomId = jwtPart(token.auth_token, 1)['room'] as string;
    const records = await consumeUntil(`${stack.topicPrefix}agent-token.events.v1`, (all) =>
      all.some((r) => r.key === `agent-room-${roomId}` && r.value['type'] === 'GuestLinkSent'),
    );
    const stream = records.filter((r) => r.key === `agent-room-${roomId}`);
    expect(stream.map((r) => r.value['type'])).toEqual(['RoomCreated', 'AgentLoggedIn', 'GuestLinkSent']);
    expect(stream.map((r) => r.value['streamPosition'])).toEqual([1, 2, 3]);
    const guestToken = new URL(token.guest_link as string).pathname.split('/').pop() as string;
    const everything = JSON.stringify(records);
    expect(everything).not.toContain(token.auth_token);
    expect(everything).not.toContain(guestToken);
    expect(everything).not.toContain(token.auth_token.split('.')[2]);
  });
});
