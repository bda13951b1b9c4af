import { randomUUID } from 'node:crypto';
import { decodeJwt } from 'jose';
import type { DataSource } from 'typeorm';
import type { CommandReply } from '@seed/contracts';
import type {
  AgentSessionResponse,
  AgentTokenResponse,
  CreateAgentTokenData,
  GuestRoomResponse,
  SealedReply,
} from '@seed/agent-token-contracts';
import { CommandPipeline, EventStore, ProcessedMessages } from '@seed/platform-event-store';
import { SubscriptionRegistry } from '@seed/platform-nest';
import { parseKeyring } from '@seed/platform-secrets';
import { dropSchema, openTestDataSource, testKeyring, testLogger, uniqueName } from '@seed/platform-testing';
import { AgentTokenConfig } from '../agent-token.config';
import { commandOf, contextOf, migrateAgentTokenSchema } from '../agent-token.test-helpers';
import { SealedWire } from '../sealed-wire';
import { AgentTokens } from '../tokens/agent-tokens';
import { GuestTokens } from '../tokens/guest-tokens';
import { CreateTokenHandler } from '../tokens/create-token.handler';
import { CallReferences } from './call-references';
import { GuestLinks } from './guest-links';
import { RoomExpirySweeper } from './room-expiry.sweeper';
import { RoomStore } from './room-store';
import { RoomsProjection } from './rooms.projection';
import { SessionsHandler } from './sessions.handler';

const schema = uniqueName('it_agent_token');
const store = new EventStore(schema);
const wire = new SealedWire(testKeyring());
let ds: DataSource;
let creator: CreateTokenHandler;
let sessions: SessionsHandler;
let config: AgentTokenConfig;
let registry: SubscriptionRegistry;
let pipeline: CommandPipeline;

function opened<T>(reply: CommandReply<SealedReply>): T {
  if (!reply.ok) throw new Error(`refused: ${JSON.stringify(reply.failure)}`);
  return JSON.parse(wire.open(reply.result.sealed)) as T;
}

const createData = (extra: Partial<CreateAgentTokenData> = {}): CreateAgentTokenData => ({
  accountId: 'acme',
  subAccountId: 'acme_hq',
  createRoom: true,
  phoneNumber: '+447911123456',
  ...extra,
});
const create = (data: CreateAgentTokenData, command = commandOf('CreateAgentToken', data)) => creator.create(command, contextOf(command));
const login = (token: string) => {
  const command = commandOf('StartAgentSession', { sealedToken: wire.seal(token) });
  return sessions.start(command, contextOf(command));
};
const guest = (token: string) => sessions.guestRoom(commandOf('GetGuestRoom', { sealedToken: wire.seal(token) }));
const eventsOf = async (type: string, roomId?: string): Promise<{ data: Record<string, unknown> }[]> =>
  ds.query(`SELECT data FROM "${schema}".events WHERE type = $1 AND ($2::text IS NULL OR data->>'roomId' = $2) ORDER BY global_position`, [
    type,
    roomId ?? null,
  ]);

beforeAll(async () => {
  ds = await openTestDataSource(12);
  await migrateAgentTokenSchema(ds, schema);
  config = Object.assign(new AgentTokenConfig(), { ROOM_VALIDITY_SECONDS: 900, AGENT_TOKEN_TTL_SECONDS: 3600 });
  const keys = parseKeyring(testKeyring());
  const tokens = new AgentTokens(keys);
  const links = new GuestLinks(new GuestTokens(keys), 'https://rooms.example.test/guest');
  const rooms = new RoomStore(store);
  const callReferences = new CallReferences(schema);
  registry = new SubscriptionRegistry(ds, store, testLogger());
  pipeline = new CommandPipeline(ds, store, new ProcessedMessages(schema), (types) => registry.wakeFor(types));
  creator = new CreateTokenHandler(ds, rooms, callReferences, pipeline, tokens, links, wire, config);
  sessions = new SessionsHandler(ds, rooms, callReferences, pipeline, tokens, new GuestTokens(keys), links, wire, testLogger());
});

afterAll(async () => {
  await dropSchema(ds, schema);
  await ds.destroy();
});

describe('token creation against Postgres', () => {
  it('issues only an auth_token without create_room, and writes no event', async () => {
    const before = (await eventsOf('RoomCreated')).length;
    const body = opened<AgentTokenResponse>(await create(createData({ createRoom: false, callReference: 'not-a-room-1' })));
    expect(Object.keys(body)).toEqual(['auth_token']);
    expect(decodeJwt(body.auth_token)).not.toHaveProperty('room');
    expect(await eventsOf('RoomCreated')).toHaveLength(before);
  });

  it('creates a room with its call_reference and guest link; RoomCreated holds neither token', async () => {
    const body = opened<AgentTokenResponse>(await create(createData({ callReference: 'call-int-0001' })));
    expect(body.call_reference).toBe('call-int-0001');
    expect(body.guest_link).toMatch(/^https:\/\/rooms\.example\.test\/guest\/[\w-]+\.[\w-]+\.[\w-]+$/);
    const roomId = decodeJwt(body.auth_token)['room'] as string;
    const [created] = await eventsOf('RoomCreated', roomId);
    expect(created?.data).toMatchObject({ roomId, callReference: 'call-int-0001', phoneNumber: '+447911123456', callReferenceGenerated: false });
    const stored = JSON.stringify(created);
    expect(stored).not.toContain(body.auth_token);
    expect(stored).not.toContain(body.guest_link?.split('/').pop());
  });

  it('gives a redelivered command the same token and room, creating nothing twice', async () => {
    const command = commandOf('CreateAgentToken', createData({ callReference: 'call-int-redo' }));
    const first = opened<AgentTokenResponse>(await create(command.data, command));
    const again = opened<AgentTokenResponse>(await create(command.data, command));
    expect(again).toEqual(first);
    expect((await eventsOf('RoomCreated')).filter((e) => e.data['callReference'] === 'call-int-redo')).toHaveLength(1);
  });

  it('lets exactly one of several concurrent creations with one call_reference win; the others get 409', async () => {
    const replies = await Promise.all(Array.from({ length: 6 }, () => create(createData({ callReference: 'call-int-race' }))));
    const won = replies.filter((r) => r.ok);
    const refused = replies.filter((r) => !r.ok);
    expect(won).toHaveLength(1);
    expect(refused.map((r) => !r.ok && r.failure)).toEqual(Array(5).fill(expect.objectContaining({ status: 409, code: 1000 })));
    expect((await eventsOf('RoomCreated')).filter((e) => e.data['callReference'] === 'call-int-race')).toHaveLength(1);
  });

  it('does not start a request older than the gateway waits (503): no room, and the retry gets the call_reference', async () => {
    const stale = commandOf('CreateAgentToken', createData({ callReference: 'call-int-stale' }));
    const reply = await create(stale.data, { ...stale, issuedAt: new Date(Date.now() - 31_000).toISOString() });
    expect(!reply.ok && reply.failure).toMatchObject({ status: 503, code: 2000, retryAfterSeconds: 5 });
    expect((await eventsOf('RoomCreated')).filter((e) => e.data['callReference'] === 'call-int-stale')).toHaveLength(0);
    expect(opened<AgentTokenResponse>(await create(createData({ callReference: 'call-int-stale' }))).call_reference).toBe('call-int-stale');
  });

  it('keeps call_references per account', async () => {
    expect((await create(createData({ callReference: 'call-int-shared' }))).ok).toBe(true);
    expect((await create(createData({ accountId: 'other', subAccountId: 'other_hq', callReference: 'call-int-shared' }))).ok).toBe(true);
  });

  it('releases the call_reference of an expired room, but not of one an agent joined', async () => {
    const short = Object.assign(new AgentTokenConfig(), { ROOM_VALIDITY_SECONDS: 1, AGENT_TOKEN_TTL_SECONDS: 3600 });
    const keys = parseKeyring(testKeyring());
    const tokens = new AgentTokens(keys);
    const quick = new CreateTokenHandler(
      ds,
      new RoomStore(store),
      new CallReferences(schema),
      pipeline,
      tokens,
      new GuestLinks(new GuestTokens(keys), 'https://rooms.example.test/guest'),
      wire,
      short,
    );
    const make = (callReference: string) => {
      const command = commandOf('CreateAgentToken', createData({ callReference }));
      return quick.create(command, contextOf(command));
    };
    expect((await make('call-int-expire')).ok).toBe(true);
    expect(!(await make('call-int-expire')).ok).toBe(true);
    // A room whose agent joined keeps its reference (here: through the default handler's room).
    const joined = opened<AgentTokenResponse>(await create(createData({ callReference: 'call-int-kept' })));
    opened<AgentSessionResponse>(await login(joined.auth_token));
    await new Promise((r) => setTimeout(r, 1100));
    expect((await make('call-int-expire')).ok).toBe(true);
    const kept = await create(createData({ callReference: 'call-int-kept' }));
    expect(!kept.ok && kept.failure.status).toBe(409);
  });
});

describe('agent login against Postgres', () => {
  it('joins the room once when several logins race: one AgentLoggedIn with the SMS due', async () => {
    const body = opened<AgentTokenResponse>(await create(createData({ callReference: 'call-int-login' })));
    const roomId = decodeJwt(body.auth_token)['room'] as string;
    const answers = (await Promise.all(Array.from({ length: 8 }, () => login(body.auth_token)))).map((r) => opened<AgentSessionResponse>(r));
    for (const answer of answers) {
      expect(answer.room).toMatchObject({ call_reference: 'call-int-login', state: 'agent_joined', guest_link: body.guest_link, guest_link_sms: true });
      expect(answer.agent.agent_id).toBe(decodeJwt(body.auth_token).sub);
    }
    const joined = await eventsOf('AgentLoggedIn', roomId);
    expect(joined).toHaveLength(1);
    expect(joined[0]?.data).toMatchObject({ roomId, guestLinkSmsDue: true });
    // A later login decides nothing more.
    opened<AgentSessionResponse>(await login(body.auth_token));
    expect(await eventsOf('AgentLoggedIn', roomId)).toHaveLength(1);
  });

  it('joins nothing once a later room took the call_reference over at the expiry, by a clock ahead of this one', async () => {
    const body = opened<AgentTokenResponse>(await create(createData({ callReference: 'call-int-taken' })));
    const roomId = decodeJwt(body.auth_token)['room'] as string;
    const expiresAt = (await eventsOf('RoomCreated', roomId))[0]?.data['expiresAt'] as string;
    // What a creation with this reference does when its clock reads the room's expiry.
    const later = new Date(Date.parse(expiresAt) + 900_000).toISOString();
    expect(await ds.transaction((tx) => new CallReferences(schema).reserve(tx, 'acme', 'call-int-taken', randomUUID(), later, expiresAt))).toBe(true);

    const answer = opened<AgentSessionResponse>(await login(body.auth_token));
    expect(answer.room).toMatchObject({ call_reference: 'call-int-taken', state: 'expired' });
    expect(await eventsOf('AgentLoggedIn', roomId)).toHaveLength(0);
    expect(await eventsOf('RoomExpired', roomId)).toHaveLength(1);
  });

  it('answers a token without a room with the agent and no room', async () => {
    const body = opened<AgentTokenResponse>(await create(createData({ createRoom: false })));
    const answer = opened<AgentSessionResponse>(await login(body.auth_token));
    expect(answer).toEqual({ agent: { agent_id: decodeJwt(body.auth_token).sub, account_id: 'acme', expires_at: expect.any(String) }, room: null });
  });

  it('refuses a tampered token and one of another signing key with 401, recording nothing', async () => {
    const body = opened<AgentTokenResponse>(await create(createData({ callReference: 'call-int-tamper' })));
    const [h, p, s] = body.auth_token.split('.') as [string, string, string];
    const foreign = await new AgentTokens(parseKeyring(testKeyring())).signAgentToken({
      tokenId: 'x',
      agentId: 'agent-x',
      accountId: 'acme',
      roomId: decodeJwt(body.auth_token)['room'] as string,
      issuedAt: new Date(),
      expiresAt: new Date(Date.now() + 60_000),
    });
    for (const bad of [`${h}.${p}x.${s}`, `${h}.${p}.${s.slice(0, -1)}`, foreign, body.guest_link?.split('/').pop() as string]) {
      const reply = await login(bad);
      expect(!reply.ok && reply.failure).toMatchObject({ status: 401, code: 1200 });
    }
    expect(await eventsOf('AgentLoggedIn', decodeJwt(body.auth_token)['room'] as string)).toHaveLength(0);
  });
});

describe('guest room and expiry against Postgres', () => {
  it('shows waiting, then agent_joined; an agent token is not a guest token', async () => {
    const body = opened<AgentTokenResponse>(await create(createData({ callReference: 'call-int-guest' })));
    const guestToken = body.guest_link?.split('/').pop() as string;
    expect(opened<GuestRoomResponse>(await guest(guestToken))).toMatchObject({ call_reference: 'call-int-guest', state: 'waiting' });
    opened<AgentSessionResponse>(await login(body.auth_token));
    expect(opened<GuestRoomResponse>(await guest(guestToken)).state).toBe('agent_joined');
    const wrong = await guest(body.auth_token);
    expect(!wrong.ok && wrong.failure.status).toBe(401);
  });

  it('records RoomExpired for waiting rooms past their expiry (controlled clock), once, and never for a joined room', async () => {
    const waiting = opened<AgentTokenResponse>(await create(createData({ callReference: 'call-int-sweep1' })));
    const joined = opened<AgentTokenResponse>(await create(createData({ callReference: 'call-int-sweep2' })));
    opened<AgentSessionResponse>(await login(joined.auth_token));
    const projection = new RoomsProjection(schema);
    const follow = async () => {
      await ds.transaction(async (tx) => {
        const events = await store.readStreams(tx, [waiting, joined].map((b) => `agent-room-${decodeJwt(b.auth_token)['room'] as string}`));
        await projection.handle([...events.values()].flat(), tx);
      });
    };
    await follow();
    const sweeper = new RoomExpirySweeper(ds, new RoomStore(store), pipeline, schema, 1000, testLogger());
    const roomOf = (b: AgentTokenResponse) => decodeJwt(b.auth_token)['room'] as string;
    await sweeper.sweep(new Date(Date.now() + 899_000));
    expect(await eventsOf('RoomExpired', roomOf(waiting))).toHaveLength(0);
    await sweeper.sweep(new Date(Date.now() + 901_000));
    await sweeper.sweep(new Date(Date.now() + 902_000)); // the read model still says waiting: decided again, nothing new
    expect(await eventsOf('RoomExpired', roomOf(waiting))).toHaveLength(1);
    expect(await eventsOf('RoomExpired', roomOf(joined))).toHaveLength(0);
  });
});
