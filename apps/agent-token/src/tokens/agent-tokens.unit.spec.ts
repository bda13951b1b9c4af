import { decodeJwt, decodeProtectedHeader } from 'jose';
import { parseKeyring } from '@seed/platform-secrets';
import { AgentTokens, InvalidTokenError, type AgentClaims } from './agent-tokens';

const key = (fill: number) => Buffer.alloc(32, fill).toString('base64');
const OLD = parseKeyring(`k1:${key(1)}`);
const ROTATED = parseKeyring(`k2:${key(2)},k1:${key(1)}`);
const RETIRED = parseKeyring(`k2:${key(2)}`);

const T0 = new Date('2026-11-22T10:00:00.000Z');
const later = (seconds: number) => new Date(T0.getTime() + seconds * 1000);
const claims: AgentClaims = {
  tokenId: 'tok-1',
  agentId: 'agent-1',
  accountId: 'acme',
  roomId: 'room-1',
  issuedAt: T0,
  expiresAt: later(3600),
};

describe('agent tokens', () => {
  it('signs HS256 with the current key id in the header and the claims of the agent API', async () => {
    const token = await new AgentTokens(OLD).signAgentToken(claims);
    expect(decodeProtectedHeader(token)).toEqual({ alg: 'HS256', kid: 'k1', typ: 'agent+jwt' });
    expect(decodeJwt(token)).toEqual({
      iss: 'seed-messaging',
      aud: 'agent-api',
      sub: 'agent-1',
      jti: 'tok-1',
      acc: 'acme',
      room: 'room-1',
      iat: T0.getTime() / 1000,
      exp: later(3600).getTime() / 1000,
    });
    await expect(new AgentTokens(OLD).verifyAgentToken(token, later(10))).resolves.toEqual(claims);
  });

  it('leaves the room out of a token without one', async () => {
    const tokens = new AgentTokens(OLD);
    const token = await tokens.signAgentToken({ ...claims, roomId: null });
    expect(decodeJwt(token)).not.toHaveProperty('room');
    await expect(tokens.verifyAgentToken(token, later(10))).resolves.toMatchObject({ roomId: null });
  });

  it('still verifies a token of a retired key while that key is listed, and signs new ones with the current key', async () => {
    const before = await new AgentTokens(OLD).signAgentToken(claims);
    const rotated = new AgentTokens(ROTATED);
    await expect(rotated.verifyAgentToken(before, later(10))).resolves.toEqual(claims);
    const after = await rotated.signAgentToken(claims);
    expect(decodeProtectedHeader(after).kid).toBe('k2');
    // Once the old key is dropped from the setting, its tokens no longer verify.
    await expect(new AgentTokens(RETIRED).verifyAgentToken(before, later(10))).rejects.toThrow(InvalidTokenError);
    await expect(new AgentTokens(RETIRED).verifyAgentToken(after, later(10))).resolves.toEqual(claims);
  });

  it('refuses an expired token at its expiry (controlled clock)', async () => {
    const tokens = new AgentTokens(OLD);
    const token = await tokens.signAgentToken(claims);
    await expect(tokens.verifyAgentToken(token, later(3599))).resolves.toEqual(claims);
    await expect(tokens.verifyAgentToken(token, later(3600))).rejects.toThrow('the token has expired');
  });

  it('refuses a tampered payload, a tampered signature, a foreign key and garbage', async () => {
    const tokens = new AgentTokens(OLD);
    const token = await tokens.signAgentToken(claims);
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const forged = Buffer.from(JSON.stringify({ ...decodeJwt(token), acc: 'someone-else' })).toString('base64url');
    const flipped = `${signature.slice(0, -2)}${signature.endsWith('AA') ? 'BB' : 'AA'}`;
    const foreign = await new AgentTokens(parseKeyring(`k1:${key(9)}`)).signAgentToken(claims);
    for (const bad of [`${header}.${forged}.${signature}`, `${header}.${payload}.${flipped}`, foreign, 'not-a-jwt', '', 'a.b.c']) {
      await expect(tokens.verifyAgentToken(bad, later(10))).rejects.toThrow(InvalidTokenError);
    }
  });

  it('refuses an unsigned token (alg none)', async () => {
    const header = Buffer.from(JSON.stringify({ alg: 'none', kid: 'k1', typ: 'agent+jwt' })).toString('base64url');
    const token = await new AgentTokens(OLD).signAgentToken(claims);
    const payload = token.split('.')[1] as string;
    await expect(new AgentTokens(OLD).verifyAgentToken(`${header}.${payload}.`, later(10))).rejects.toThrow(InvalidTokenError);
  });
});
