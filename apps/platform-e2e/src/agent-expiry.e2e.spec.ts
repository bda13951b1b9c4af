import { eventually, type RunningStack } from '@seed/platform-testing';
import { AgentTokenDb, useAgentStack, createToken, guestRoom, jwtPart, logIn, openGuestLink, postSession, postToken } from './support/agent';
import { expectApiError, ukMobile, type Account } from './support/http';
import { smsc } from './support/smsc';

/** Rooms that wait 2 s for their agent, tokens that live 4 s: the expiry rules with a short clock. */
const ROOM_SECONDS = 2;
const TOKEN_SECONDS = 4;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('room and token expiry', () => {
  const ctx = useAgentStack({ ROOM_VALIDITY_SECONDS: String(ROOM_SECONDS), AGENT_TOKEN_TTL_SECONDS: String(TOKEN_SECONDS), ROOM_EXPIRY_SWEEP_MS: '200' });
  let stack: RunningStack;
  let db: AgentTokenDb;
  let account: Account;
  beforeAll(() => ({ stack, db, account } = ctx));

  it('a room no agent joined expires after its validity: the guest page says so, RoomExpired is recorded, no SMS goes out', async () => {
    const phone = ukMobile(7001);
    const token = await createToken(stack, account.apiKey, { create_room: true, call_reference: 'expiry-ref-01', phone_number: `+${phone}` });
    const link = token.guest_link as string;
    const room = await guestRoom(link);
    expect(room.state).toBe('waiting');
    const createdAt = (jwtPart(token.auth_token, 1)['iat'] as number) * 1000;
    expect(Date.parse(room.expires_at) - createdAt).toBeGreaterThanOrEqual(ROOM_SECONDS * 1000);
    expect(Date.parse(room.expires_at) - createdAt).toBeLessThan(ROOM_SECONDS * 1000 + 1000);

    await sleep(ROOM_SECONDS * 1000 + 200);
    expect((await guestRoom(link)).state).toBe('expired');
    const page = await openGuestLink(link);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('data-state="expired"');
    expect(html).toContain('This room has expired');

    // The agent's token is still valid, but the room is over: the login says so and joins nothing.
    const session = await logIn(stack, token.auth_token);
    expect(session.room).toMatchObject({ call_reference: 'expiry-ref-01', state: 'expired' });
    const roomId = jwtPart(token.auth_token, 1)['room'] as string;
    const expired = await eventually(async () => (await db.events(`type = 'RoomExpired' AND data->>'roomId' = $1`, [roomId]))[0]);
    expect(expired.data).toMatchObject({ roomId, expiredAt: room.expires_at });
    expect(await db.events(`type = 'AgentLoggedIn' AND data->>'roomId' = $1`, [roomId])).toHaveLength(0);
    expect(await db.events(`type = 'RoomExpired' AND data->>'roomId' = $1`, [roomId])).toHaveLength(1);
    await sleep(1000);
    expect(await smsc(stack.smscUrl).messages(phone)).toHaveLength(0);
  });

  it('an expired room releases its call_reference; an active one keeps it', async () => {
    await createToken(stack, account.apiKey, { create_room: true, call_reference: 'expiry-ref-02' });
    await expectApiError(await postToken(stack, account.apiKey, { create_room: true, call_reference: 'expiry-ref-02' }), 409, 1000);
    await sleep(ROOM_SECONDS * 1000 + 200);
    expect((await createToken(stack, account.apiKey, { create_room: true, call_reference: 'expiry-ref-02' })).call_reference).toBe('expiry-ref-02');
  });

  it('a room an agent joined does not expire, and keeps its call_reference while its token lives', async () => {
    const token = await createToken(stack, account.apiKey, { create_room: true, call_reference: 'expiry-ref-03' });
    expect((await logIn(stack, token.auth_token)).room?.state).toBe('agent_joined');
    await sleep(ROOM_SECONDS * 1000 + 200);
    expect((await guestRoom(token.guest_link as string)).state).toBe('agent_joined');
    await expectApiError(await postToken(stack, account.apiKey, { create_room: true, call_reference: 'expiry-ref-03' }), 409, 1000);
    const roomId = jwtPart(token.auth_token, 1)['room'] as string;
    expect(await db.events(`type = 'RoomExpired' AND data->>'roomId' = $1`, [roomId])).toHaveLength(0);
  });

  it('an expired auth_token is refused (401, 1200); so is its guest link', async () => {
    const token = await createToken(stack, account.apiKey, { create_room: true });
    expect((await postSession(stack, token.auth_token)).status).toBe(200);
    await sleep(TOKEN_SECONDS * 1000 + 1100);
    await expectApiError(await postSession(stack, token.auth_token), 401, 1200);
    await expectApiError(await openGuestLink(token.guest_link as string, 'json'), 401, 1200);
    expect((await openGuestLink(token.guest_link as string)).status).toBe(401);
  });
});
