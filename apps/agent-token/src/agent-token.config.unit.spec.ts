import { ConfigError, loadConfig } from '@seed/platform-config';
import { AgentTokenConfig } from './agent-token.config';

const key = `k1:${Buffer.alloc(32, 3).toString('base64')}`;
const VALID = { DATABASE_URL: 'postgres://seed@127.0.0.1:5432/seed', KAFKA_BROKERS: '127.0.0.1:9092', AGENT_TOKEN_SIGNING_KEYS: key, MESSAGE_SEALING_KEYS: key };

const problems = (env: Record<string, string>): string => {
  try {
    loadConfig(AgentTokenConfig, { ...VALID, ...env });
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  return '';
};

describe('agent-token configuration', () => {
  it('has the product defaults, and guest links on the local agent listener when no base URL is given', () => {
    const config = loadConfig(AgentTokenConfig, { ...VALID, AGENT_API_PORT: '4001' });
    expect(config).toMatchObject({ AGENT_TOKEN_TTL_SECONDS: 3600, ROOM_VALIDITY_SECONDS: 900, AGENT_GUEST_SMS_TEXT: 'Join your video call: {link}' });
    expect(config.guestBaseUrl).toBe('http://127.0.0.1:4001/guest');
  });

  it('takes rooms that wait as long as their tokens live', () => {
    expect(problems({ AGENT_TOKEN_TTL_SECONDS: '900', ROOM_VALIDITY_SECONDS: '900' })).toBe('');
  });

  it('takes an https base URL, without a trailing slash', () => {
    expect(loadConfig(AgentTokenConfig, { ...VALID, AGENT_GUEST_BASE_URL: 'https://agent.example.com/guest/' }).guestBaseUrl).toBe('https://agent.example.com/guest');
    expect(problems({ AGENT_GUEST_BASE_URL: 'http://localhost:3001/guest' })).toBe('');
  });

  it.each([
    ['plain http on a public host', { AGENT_GUEST_BASE_URL: 'http://agent.example.com/guest' }, 'AGENT_GUEST_BASE_URL'],
    ['a relative base URL', { AGENT_GUEST_BASE_URL: '/guest' }, 'AGENT_GUEST_BASE_URL'],
    ['a base URL with a query', { AGENT_GUEST_BASE_URL: 'https://agent.example.com/guest?x=1' }, 'AGENT_GUEST_BASE_URL'],
    ['a text without {link}', { AGENT_GUEST_SMS_TEXT: 'Join your call' }, 'AGENT_GUEST_SMS_TEXT'],
    ['a sender id sms-batch refuses', { AGENT_GUEST_SMS_SOURCE: 'TwelveLetter' }, 'AGENT_GUEST_SMS_SOURCE'],
    ['rooms that wait longer than their tokens live', { AGENT_TOKEN_TTL_SECONDS: '600', ROOM_VALIDITY_SECONDS: '900' }, 'ROOM_VALIDITY_SECONDS'],
    ['no signing keys', { AGENT_TOKEN_SIGNING_KEYS: '' }, 'AGENT_TOKEN_SIGNING_KEYS'],
    ['a short signing key', { AGENT_TOKEN_SIGNING_KEYS: `k1:${Buffer.alloc(8).toString('base64')}` }, 'AGENT_TOKEN_SIGNING_KEYS'],
  ])('refuses %s', (_name, env, setting) => {
    expect(problems(env)).toContain(`${setting}:`);
  });
});
