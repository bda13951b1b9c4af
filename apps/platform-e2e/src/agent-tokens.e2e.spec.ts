import type { RunningStack } from '@seed/platform-testing';
import { admin } from './support/admin';
import { AgentTokenDb, useAgentStack, createToken, jwtPart, postToken } from './support/agent';
import { expectApiError, request, type Account } from './support/http';

const JWT = /^[\w-]+\.[\w-]+\.[\w-]+$/;

/** `POST /api/v1/tokens` as the contract and the product decisions describe it. */
describe('agent tokens: POST /api/v1/tokens', () => {
  const ctx = useAgentStack();
  let stack: RunningStack;
  let db: AgentTokenDb;
  let account: Account;
  beforeAll(() => ({ stack, db, account } = ctx));

  describe('without a room', () => {
    it.each([
      ['no body and no content type', () => postToken(stack, account.apiKey)],
      ['no body with a JSON content type', () => request(`${stack.agentUrl}/api/v1/tokens`, { token: account.apiKey, headers: { 'content-type': 'application/json' } })],
      ['an empty object', () => postToken(stack, account.apiKey, {})],
      ['create_room false', () => postToken(stack, account.apiKey, { create_room: false })],
      ['call_reference and phone_number without create_room', () => postToken(stack, account.apiKey, { call_reference: 'no-room-001', phone_number: '+447911123456' })],
    ])('%s: only an auth_token, no room created', async (_name, send) => {
      const before = await db.eventCount();
      const res = await send();
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      const body = (await res.json()) as Record<string, unknown>;
      expect(Object.keys(body)).toEqual(['auth_token']);
      expect(body['auth_token']).toMatch(JWT);
      expect(jwtPart(body['auth_token'] as string, 1)).not.toHaveProperty('room');
      expect(await db.eventCount()).toBe(before);
    });

    it('signs a JWT with a key id, the account, an agent identity and a lifetime of one hour', async () => {
      const { auth_token } = await createToken(stack, account.apiKey);
      expect(jwtPart(auth_token, 0)).toEqual({ alg: 'HS256', kid: 't1', typ: 'agent+jwt' });
      const claims = jwtPart(auth_token, 1);
      expect(claims).toMatchObject({ acc: account.accountId, aud: 'agent-api', iss: 'seed-messaging' });
      expect(claims['sub']).toMatch(/^agent-[0-9a-f-]{36}$/);
      expect((claims['exp'] as number) - (claims['iat'] as number)).toBe(3600);
      expect(Math.abs((claims['iat'] as number) * 1000 - Date.now())).toBeLessThan(60_000);
      // Each token is a new agent identity.
      expect(jwtPart((await createToken(stack, account.apiKey)).auth_token, 1)['sub']).not.toBe(claims['sub']);
    });
  });

  describe('with a room', () => {
    it('creates a room with the given call_reference and an absolute guest link carrying a guest token', async () => {
      const body = await createToken(stack, account.apiKey, { create_room: true, call_reference: 'Call_2026-0001', phone_number: '+44 7911 123456' });
      expect(Object.keys(body).sort()).toEqual(['auth_token', 'call_reference', 'guest_link']);
      expect(body.call_reference).toBe('Call_2026-0001');
      const link = new URL(body.guest_link as string);
      expect(`${link.protocol}//${link.host}`).toBe(stack.agentUrl);
      const guestToken = link.pathname.replace(/^\/guest\//, '');
      // Short enough for a one-part SMS: the signing key's id, the room, a 128-bit MAC.
      expect(guestToken).toMatch(/^t1\.[\w-]{22}\.[\w-]{22}$/);
      const roomId = jwtPart(body.auth_token, 1)['room'] as string;
      expect(Buffer.from(guestToken.split('.')[1] as string, 'base64url').toString('hex')).toBe(roomId.replaceAll('-', ''));

      const [created] = await db.events(`stream_id = $1`, [`agent-room-${roomId}`]);
      expect(created).toMatchObject({
        type: 'RoomCreated',
        data: { roomId, accountId: account.accountId, subAccountId: account.subAccountId, callReference: 'Call_2026-0001', phoneNumber: '+447911123456' },
      });
      const stored = JSON.stringify(await db.events());
      expect(stored).not.toContain(body.auth_token);
      expect(stored).not.toContain(guestToken);
    });

    it('makes a 12-character call_reference when none is given', async () => {
      const body = await createToken(stack, account.apiKey, { create_room: true });
      expect(body.call_reference).toMatch(/^[A-Za-z0-9_-]{12}$/);
      expect(body.guest_link).toMatch(/\/guest\/t1\.[\w-]{22}\.[\w-]{22}$/);
    });

    it('refuses a call_reference used by an active room of the account: 409, nothing created; another account may use it', async () => {
      await createToken(stack, account.apiKey, { create_room: true, call_reference: 'dup-ref-0001' });
      const before = await db.eventCount();
      await expectApiError(await postToken(stack, account.apiKey, { create_room: true, call_reference: 'dup-ref-0001' }), 409, 1000);
      expect(await db.eventCount()).toBe(before);
      const other = await stack.createAccount();
      expect((await createToken(stack, other.apiKey, { create_room: true, call_reference: 'dup-ref-0001' })).call_reference).toBe('dup-ref-0001');
      // Without create_room no room is made, so the reference is not checked for use.
      expect(Object.keys(await createToken(stack, account.apiKey, { call_reference: 'dup-ref-0001' }))).toEqual(['auth_token']);
    });

    it('gives each of several concurrent requests with one call_reference a 200 or a 409, exactly one 200', async () => {
      const replies = await Promise.all(
        Array.from({ length: 5 }, () => postToken(stack, account.apiKey, { create_room: true, call_reference: 'race-ref-0001' })),
      );
      expect(replies.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409]);
    });
  });

  describe('bad input: the error body, nothing changed', () => {
    it.each([
      ['call_reference of 7 characters', { create_room: true, call_reference: 'abcdefg' }, 400, 1000],
      ['call_reference of 21 characters', { create_room: true, call_reference: 'a'.repeat(21) }, 400, 1000],
      ['call_reference with a space', { create_room: true, call_reference: 'call ref 001' }, 400, 1000],
      ['call_reference with other characters', { create_room: true, call_reference: 'call/ref#001' }, 400, 1000],
      ['call_reference that is not a string', { create_room: true, call_reference: 12345678 }, 400, 1000],
      ['a malformed call_reference without create_room', { call_reference: 'short' }, 400, 1000],
      ['an invalid phone_number', { create_room: true, phone_number: '+44 12' }, 400, 1002],
      ['a phone_number that is not a number', { create_room: true, phone_number: 'call me' }, 400, 1002],
      ['a phone_number that is not a string', { create_room: true, phone_number: 447911123456 }, 400, 1002],
      ['an invalid phone_number without create_room', { phone_number: '12' }, 400, 1002],
      ['create_room as a string', { create_room: 'true' }, 400, 1000],
      ['create_room as a number', { create_room: 1 }, 400, 1000],
      ['a JSON array', [{ create_room: true }], 400, 1000],
    ])('%s: %j -> %d, code %d', async (_name, body, status, code) => {
      const before = await db.eventCount();
      await expectApiError(await postToken(stack, account.apiKey, body), status, code);
      expect(await db.eventCount()).toBe(before);
    });

    it('a body that is not JSON: 400; not declared JSON: 415', async () => {
      const before = await db.eventCount();
      await expectApiError(await postToken(stack, account.apiKey, '{"create_room": tru', { contentType: 'application/json' }), 400, 1000);
      await expectApiError(await postToken(stack, account.apiKey, 'create_room=true', { contentType: 'application/x-www-form-urlencoded' }), 415, 1000);
      await expectApiError(await postToken(stack, account.apiKey, 'null', { contentType: 'application/json' }), 400, 1000);
      expect(await db.eventCount()).toBe(before);
    });

    it('a missing, unknown or revoked API key: 401, 1200', async () => {
      const before = await db.eventCount();
      await expectApiError(await postToken(stack, null, { create_room: true }), 401, 1200);
      await expectApiError(await postToken(stack, 'sk_not_a_key', { create_room: true }), 401, 1200);
      const doomed = await stack.createAccount();
      expect((await admin(stack).revokeApiKey(doomed.accountId, doomed.apiKeyId)).status).toBe(204);
      await expectApiError(await postToken(stack, doomed.apiKey, { create_room: true }), 401, 1200);
      await expectApiError(await postToken(stack, stack.adminToken), 401, 1200);
      expect(await db.eventCount()).toBe(before);
    });

    it('is served on the agent listener only', async () => {
      const res = await request(`${stack.messagingUrl}/api/v1/tokens`, { token: account.apiKey, body: {} });
      await expectApiError(res, 404, 1300);
    });
  });
});
