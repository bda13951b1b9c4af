import { Pool } from 'pg';
import type { AgentSessionResponse, AgentTokenResponse, GuestRoomResponse } from '@seed/agent-token-contracts';
import type { RunningStack } from '@seed/platform-testing';
import { request, type Account, type RawRequest } from './http';
import type { SmsBatchDb } from './database';
import { useStack } from './stack';

export type { AgentSessionResponse, AgentTokenResponse, GuestRoomResponse };

/** `POST /api/v1/tokens` on the agent listener; without `body`, none is sent. */
export function postToken(stack: RunningStack, apiKey: string | null, body?: unknown, options: Omit<RawRequest, 'body' | 'token'> = {}): Promise<Response> {
  return request(`${stack.agentUrl}/api/v1/tokens`, { token: apiKey, ...options, ...(body !== undefined ? { body } : {}) });
}

/** A token request that must be answered 200. */
export async function createToken(stack: RunningStack, apiKey: string, body?: unknown): Promise<AgentTokenResponse> {
  const res = await postToken(stack, apiKey, body);
  const text = await res.text();
  if (res.status !== 200) throw new Error(`expected 200, got ${res.status}: ${text.slice(0, 500)}`);
  return JSON.parse(text) as AgentTokenResponse;
}

/** `POST /api/v1/sessions` with the auth_token as bearer. */
export function postSession(stack: RunningStack, authToken: string | null): Promise<Response> {
  return request(`${stack.agentUrl}/api/v1/sessions`, { token: authToken });
}

export async function logIn(stack: RunningStack, authToken: string): Promise<AgentSessionResponse> {
  const res = await postSession(stack, authToken);
  const text = await res.text();
  if (res.status !== 200) throw new Error(`expected 200, got ${res.status}: ${text.slice(0, 500)}`);
  return JSON.parse(text) as AgentSessionResponse;
}

/** Opens a guest link as a browser would (HTML) or as a script (JSON). */
export function openGuestLink(link: string, as: 'html' | 'json' = 'html'): Promise<Response> {
  return fetch(link, { headers: { accept: as === 'json' ? 'application/json' : 'text/html,application/xhtml+xml' } });
}

export async function guestRoom(link: string): Promise<GuestRoomResponse> {
  const res = await openGuestLink(link, 'json');
  if (res.status !== 200) throw new Error(`guest link answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as GuestRoomResponse;
}

/** The payload of a JWT, read without verifying it (the service verifies). */
export function jwtPart(token: string, part: 0 | 1): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[part] ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;
}

/** Read-only look into the stack's agent-token schema (`<schemaPrefix>agent_token`). */
export class AgentTokenDb {
  private readonly schema: string;
  private readonly pool: Pool;

  constructor(stack: RunningStack) {
    this.schema = `${stack.schemaPrefix}agent_token`;
    this.pool = new Pool({ connectionString: stack.env['DATABASE_URL'] ?? process.env['DATABASE_URL'], max: 2 });
  }

  async events(where = 'true', params: unknown[] = []): Promise<{ type: string; stream_id: string; data: Record<string, unknown> }[]> {
    const result = await this.pool.query(`SELECT type, stream_id, data FROM "${this.schema}".events WHERE ${where} ORDER BY global_position`, params);
    return result.rows as { type: string; stream_id: string; data: Record<string, unknown> }[];
  }

  async eventCount(): Promise<number> {
    return (await this.events()).length;
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}

export interface AgentContext {
  readonly stack: RunningStack;
  readonly db: AgentTokenDb;
  /** The stack's sms-batch schema, where the guest-link SMS is recorded. */
  readonly smsBatch: SmsBatchDb;
  readonly account: Account;
}

/**
 * What every agent test file starts from: its own stack (with `extraEnv`), a look into
 * agent-token's schema, and one account. Available from beforeAll on; closed in afterAll.
 */
export function useAgentStack(extraEnv: Record<string, string> = {}): AgentContext {
  const ctx = useStack(extraEnv);
  let db: AgentTokenDb | undefined;
  let account: Account | undefined;
  beforeAll(async () => {
    db = new AgentTokenDb(ctx.stack);
    account = await ctx.stack.createAccount();
  });
  afterAll(() => db?.close());
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the agent stack is not started');
    return value;
  };
  return {
    get stack() {
      return ctx.stack;
    },
    get db() {
      return started(db);
    },
    get smsBatch() {
      return ctx.db;
    },
    get account() {
      return started(account);
    },
  };
}
