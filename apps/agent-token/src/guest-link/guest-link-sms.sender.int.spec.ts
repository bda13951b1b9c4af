import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type { CommandMessage, CommandReply } from '@seed/contracts';
import type { AgentTokenResponse, SealedReply } from '@seed/agent-token-contracts';
import { CommandPipeline, EventStore, ProcessedMessages, type StoredEvent } from '@seed/platform-event-store';
import { SubscriptionRegistry } from '@seed/platform-nest';
import { parseKeyring } from '@seed/platform-secrets';
import { dropSchema, openTestDataSource, testKeyring, testLogger, uniqueName } from '@seed/platform-testing';
import type { BatchResponse, SubmitBatchData } from '@seed/sms-batch-contracts';
import { AgentTokenConfig } from '../agent-token.config';
import { commandOf, contextOf, migrateAgentTokenSchema } from '../agent-token.test-helpers';
import { CallReferences } from '../rooms/call-references';
import { GuestLinks } from '../rooms/guest-links';
import { RoomStore } from '../rooms/room-store';
import { SessionsHandler } from '../rooms/sessions.handler';
import { SealedWire } from '../sealed-wire';
import { AgentTokens } from '../tokens/agent-tokens';
import { GuestTokens } from '../tokens/guest-tokens';
import { CreateTokenHandler } from '../tokens/create-token.handler';
import { GuestLinkSmsSender } from './guest-link-sms.sender';

/**
 * What sms-batch does with a SubmitBatch, as far as this follower relies on it: a clientBatchId
 * seen before gets the first batch back (same umid) and is not sent again.
 */
class SmsBatchStandIn {
  readonly received: CommandMessage<SubmitBatchData>[] = [];
  readonly sent = new Map<string, BatchResponse>();
  failNext = false;

  async request<T>(_topic: string, _key: string, command: CommandMessage): Promise<CommandReply<T>> {
    const submit = command as CommandMessage<SubmitBatchData>;
    this.received.push(submit);
    if (this.failNext) {
      this.failNext = false;
      return { ok: false, failure: { status: 503, code: 2000, message: 'the service did not answer in time; try again' } };
    }
    const key = submit.data.clientBatchId ?? randomUUID();
    const first = this.sent.get(key) ?? {
      batchId: randomUUID(),
      clientBatchId: key,
      acceptedCount: 1,
      rejectedCount: 0,
      messages: [{ umid: randomUUID(), destination: submit.data.messages[0]?.destination.slice(1) ?? '', encoding: 'GSM7', status: { code: 'QUEUED', description: 'SMS is accepted and queued for processing' } }],
    } satisfies BatchResponse;
    this.sent.set(key, first);
    return { ok: true, result: first as T };
  }
}

const schema = uniqueName('it_guest_sms');
const store = new EventStore(schema);
const wire = new SealedWire(testKeyring());
let ds: DataSource;
let creator: CreateTokenHandler;
let sessions: SessionsHandler;
let sender: GuestLinkSmsSender;
let smsBatch: SmsBatchStandIn;

function opened<T>(reply: CommandReply<SealedReply>): T {
  if (!reply.ok) throw new Error(`refused: ${JSON.stringify(reply.failure)}`);
  return JSON.parse(wire.open(reply.result.sealed)) as T;
}
const roomOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1] as string, 'base64url').toString())['room'] as string;

async function roomWithAgent(phoneNumber: string | undefined): Promise<{ token: AgentTokenResponse; roomId: string; joined: StoredEvent }> {
  const create = commandOf('CreateAgentToken', { accountId: 'acme', subAccountId: 'acme_hq', createRoom: true, ...(phoneNumber ? { phoneNumber } : {}) });
  const token = opened<AgentTokenResponse>(await creator.create(create, contextOf(create)));
  const login = commandOf('StartAgentSession', { sealedToken: wire.seal(token.auth_token) });
  opened(await sessions.start(login, contextOf(login)));
  const roomId = roomOf(token.auth_token);
  const joined = (await store.readStream(ds.manager, `agent-room-${roomId}`)).find((e) => e.type === 'AgentLoggedIn');
  if (!joined) throw new Error('no AgentLoggedIn');
  return { token, roomId, joined };
}

const guestLinkEvents = async (roomId: string) =>
  (await store.readStream(ds.manager, `agent-room-${roomId}`)).filter((e) => e.type === 'GuestLinkSent');

beforeAll(async () => {
  ds = await openTestDataSource(6);
  await migrateAgentTokenSchema(ds, schema);
  const config = new AgentTokenConfig();
  const keys = parseKeyring(testKeyring());
  const tokens = new AgentTokens(keys);
  const links = new GuestLinks(new GuestTokens(keys), 'https://rooms.example.test/guest');
  const rooms = new RoomStore(store);
  const registry = new SubscriptionRegistry(ds, store, testLogger());
  const pipeline = new CommandPipeline(ds, store, new ProcessedMessages(schema), (types) => registry.wakeFor(types));
  creator = new CreateTokenHandler(ds, rooms, new CallReferences(schema), pipeline, tokens, links, wire, config);
  sessions = new SessionsHandler(ds, rooms, new CallReferences(schema), pipeline, tokens, new GuestTokens(keys), links, wire, testLogger());
  smsBatch = new SmsBatchStandIn();
  sender = new GuestLinkSmsSender(rooms, links, wire, smsBatch, { text: 'Join your video call: {link}', source: 'Seed' }, testLogger());
});

afterAll(async () => {
  await dropSchema(ds, schema);
  await ds.destroy();
});

describe('guest-link SMS follower against Postgres', () => {
  it('sends the link sealed, with a redacted text and the room’s clientBatchId, and records the umid', async () => {
    const { token, roomId, joined } = await roomWithAgent('+447911123456');
    await ds.transaction((tx) => sender.handle([joined], tx));

    const [command] = smsBatch.received.slice(-1);
    expect(command?.data).toMatchObject({ accountId: 'acme', subAccountId: 'acme_hq', clientBatchId: `guest-link-${roomId}`, includeMessagesInResponse: true });
    const message = command?.data.messages[0];
    expect(message).toMatchObject({ destination: '+447911123456', text: 'Join your video call: https://rooms.example.test/guest/[guest-token]', source: 'Seed' });
    expect(wire.open(message?.sealedText as string)).toBe(`Join your video call: ${token.guest_link}`);

    const sent = await guestLinkEvents(roomId);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.data).toMatchObject({ roomId, umid: smsBatch.sent.get(`guest-link-${roomId}`)?.messages?.[0]?.umid, status: 'QUEUED' });
    expect(JSON.stringify(sent)).not.toContain(token.guest_link);
  });

  it('after a crash between the send and the commit, sends again with the same clientBatchId and records one GuestLinkSent', async () => {
    const { roomId, joined } = await roomWithAgent('+447911123457');
    const crash = new Error('crash after the send');
    await expect(
      ds.transaction(async (tx) => {
        await sender.handle([joined], tx);
        throw crash;
      }),
    ).rejects.toBe(crash);
    expect(await guestLinkEvents(roomId)).toHaveLength(0);

    await ds.transaction((tx) => sender.handle([joined], tx));
    const sends = smsBatch.received.filter((c) => c.data.clientBatchId === `guest-link-${roomId}`);
    expect(sends).toHaveLength(2); // sms-batch answers the second with the first batch: one SMS
    const sent = await guestLinkEvents(roomId);
    expect(sent).toHaveLength(1);
    expect((sent[0]?.data as { umid?: string } | undefined)?.umid).toBe(smsBatch.sent.get(`guest-link-${roomId}`)?.messages?.[0]?.umid);

    // The same event delivered again after the commit sends nothing.
    await ds.transaction((tx) => sender.handle([joined], tx));
    expect(smsBatch.received.filter((c) => c.data.clientBatchId === `guest-link-${roomId}`)).toHaveLength(2);
  });

  it('throws when sms-batch does not accept, so that the event comes again; records nothing', async () => {
    const { roomId, joined } = await roomWithAgent('+447911123458');
    smsBatch.failNext = true;
    await expect(ds.transaction((tx) => sender.handle([joined], tx))).rejects.toThrow(/not accepted: 503/);
    expect(await guestLinkEvents(roomId)).toHaveLength(0);
    await ds.transaction((tx) => sender.handle([joined], tx));
    expect(await guestLinkEvents(roomId)).toHaveLength(1);
  });

  it('sends the SMS of several joined rooms in one batch of the log, one each', async () => {
    const rooms = await Promise.all(['+447911123460', '+447911123461', '+447911123462'].map((phone) => roomWithAgent(phone)));
    await ds.transaction((tx) => sender.handle(rooms.map((r) => r.joined), tx));
    for (const { roomId } of rooms) {
      expect(smsBatch.received.filter((c) => c.data.clientBatchId === `guest-link-${roomId}`)).toHaveLength(1);
      expect(await guestLinkEvents(roomId)).toHaveLength(1);
    }
  });

  it('sends nothing for a room without a phone number', async () => {
    const before = smsBatch.received.length;
    const { roomId, joined } = await roomWithAgent(undefined);
    await ds.transaction((tx) => sender.handle([joined], tx));
    expect(smsBatch.received).toHaveLength(before);
    expect(await guestLinkEvents(roomId)).toHaveLength(0);
  });
});
