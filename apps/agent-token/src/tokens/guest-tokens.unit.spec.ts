import { parseKeyring } from '@seed/platform-secrets';
import { AgentTokens, InvalidTokenError } from './agent-tokens';
import { GuestTokens } from './guest-tokens';

const key = (fill: number) => Buffer.alloc(32, fill).toString('base64');
const OLD = parseKeyring(`k1:${key(1)}`);
const ROTATED = parseKeyring(`k2:${key(2)},k1:${key(1)}`);
const RETIRED = parseKeyring(`k2:${key(2)}`);
const ROOM = '0193f0a4-5b6c-7d8e-9f01-23456789abcd';

describe('guest tokens', () => {
  it('are 48 characters for a two-character key id, name their key, and give back the room', () => {
    const token = new GuestTokens(OLD).sign(ROOM, 'k1');
    expect(token).toMatch(/^k1\.[\w-]{22}\.[\w-]{22}$/);
    expect(token).toHaveLength(48);
    expect(new GuestTokens(OLD).verify(token)).toEqual({ roomId: ROOM });
  });

  it('are the same for the same room and key, and differ between rooms', () => {
    const tokens = new GuestTokens(OLD);
    expect(tokens.sign(ROOM, 'k1')).toBe(tokens.sign(ROOM, 'k1'));
    expect(tokens.sign('0193f0a4-5b6c-7d8e-9f01-23456789abce', 'k1')).not.toBe(tokens.sign(ROOM, 'k1'));
  });

  it('still verify after a rotation while the old key is listed, not after it is dropped', () => {
    const before = new GuestTokens(OLD).sign(ROOM, 'k1');
    expect(new GuestTokens(ROTATED).verify(before)).toEqual({ roomId: ROOM });
    expect(new GuestTokens(ROTATED).sign(ROOM, 'k1')).toBe(before);
    expect(() => new GuestTokens(RETIRED).verify(before)).toThrow(InvalidTokenError);
  });

  it('refuse every single-character change, another room with this MAC, a foreign key and garbage', () => {
    const tokens = new GuestTokens(OLD);
    const token = tokens.sign(ROOM, 'k1');
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    for (let i = 3; i < token.length; i++) {
      if (token[i] === '.') continue;
      const changed = `${token.slice(0, i)}${alphabet[(alphabet.indexOf(token[i] as string) + 1) % 64]}${token.slice(i + 1)}`;
      expect(() => tokens.verify(changed)).toThrow(InvalidTokenError);
    }
    const [kid, , mac] = token.split('.');
    const other = tokens.sign('0193f0a4-5b6c-7d8e-9f01-000000000000', 'k1').split('.')[1];
    expect(() => tokens.verify(`${kid}.${other}.${mac}`)).toThrow(InvalidTokenError);
    expect(() => tokens.verify(new GuestTokens(parseKeyring(`k1:${key(9)}`)).sign(ROOM, 'k1'))).toThrow(InvalidTokenError);
    for (const bad of ['', 'k1..', 'k1.a.b', `${token}.x`, `k3${token.slice(2)}`]) expect(() => tokens.verify(bad)).toThrow(InvalidTokenError);
  });

  it('do not accept an agent token, and are not accepted as one', async () => {
    const agentToken = await new AgentTokens(OLD).signAgentToken({
      tokenId: 't',
      agentId: 'agent-1',
      accountId: 'acme',
      roomId: ROOM,
      issuedAt: new Date(),
      expiresAt: new Date(Date.now() + 60_000),
    });
    expect(() => new GuestTokens(OLD).verify(agentToken)).toThrow(InvalidTokenError);
    await expect(new AgentTokens(OLD).verifyAgentToken(new GuestTokens(OLD).sign(ROOM, 'k1'), new Date())).rejects.toThrow(InvalidTokenError);
  });
});
