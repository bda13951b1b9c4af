import { AsyncApiDocument, type Schema } from '@seed/platform-testing';
import { AGENT_TOKEN_EVENT_TOPIC, roomStreamId, type RoomCreatedV1, type RoomEvent } from '@seed/agent-token-contracts';
import { decideRoom, foldRoom, type RoomCommand } from './room.decider';

/*
 * docs/asyncapi.json (channel agentTokenEvents) and docs/events.md are what subscribers code
 * against: this keeps them in step with the events the real decider writes.
 */

const { doc, eventsMd, deref, problems } = new AsyncApiDocument();

// --- every event the decider writes, through a room's whole life ---
const T0 = '2030-01-15T10:00:00.000Z';
const at = (s: number) => new Date(Date.parse(T0) + s * 1000).toISOString();
const room = (roomId: string, phoneNumber: string | null): RoomCreatedV1 => ({
  roomId,
  accountId: 'acme',
  subAccountId: 'acme_hq',
  callReference: 'case-4711',
  callReferenceGenerated: false,
  phoneNumber,
  agentId: 'agent-6f1c2d3e-4a5b-4c6d-8e7f-901234567890',
  tokenId: '1b2c3d4e-5f60-4718-9a2b-3c4d5e6f7a8b',
  signingKeyId: 'k1',
  createdAt: T0,
  expiresAt: at(900),
  tokenExpiresAt: at(3600),
});
function run(commands: RoomCommand[]): RoomEvent[] {
  const events: RoomEvent[] = [];
  for (const command of commands) events.push(...decideRoom(command, foldRoom(events)));
  return events;
}
const JOINED = '0193f0a4-5b6c-7d8e-9f01-23456789abcd';
const EXPIRED = '0193f0b1-2c3d-7e4f-8a5b-6c7d8e9f0a1b';
const login = { type: 'LogIn', agentId: room(JOINED, null).agentId, tokenId: room(JOINED, null).tokenId, holdsCallReference: true } as const;
const streams = new Map<string, RoomEvent[]>([
  [
    JOINED,
    run([
      { type: 'CreateRoom', room: room(JOINED, '+447911123456') },
      { ...login, now: at(192) },
      {
        type: 'RecordGuestLinkSms',
        sms: { roomId: JOINED, batchId: '0193f0a7-1c2d-7e3f-8a4b-5c6d7e8f9a0b', umid: '0193f0a7-1c2e-7a1b-9c2d-3e4f5a6b7c8d', destination: '447911123456', status: 'QUEUED', description: 'SMS is accepted and queued for processing', sentAt: at(193) },
      },
    ]),
  ],
  [EXPIRED, run([{ type: 'CreateRoom', room: room(EXPIRED, null) }, { type: 'Expire', now: at(903) }])],
]);
const written = [...streams.entries()].flatMap(([roomId, events]) =>
  events.map((event, i) => ({
    eventId: '7c1d2e3f-4a5b-4c6d-9e7f-8a9b0c1d2e3f',
    type: event.type,
    schemaVersion: event.schemaVersion,
    streamId: roomStreamId(roomId),
    streamPosition: i + 1,
    globalPosition: '311',
    occurredAt: T0,
    correlationId: 'e2b7c1d4-6a5f-4e3d-9c2b-1a0f9e8d7c6b',
    causationId: null,
    traceparent: null,
    data: event.data,
  })),
);
const TYPES = ['AgentLoggedIn', 'GuestLinkSent', 'RoomCreated', 'RoomExpired'];

const channel = (doc['channels'] as Record<string, Schema>)['agentTokenEvents'] as Schema;
const message = (type: string): Schema => deref((channel['messages'] as Record<string, Schema>)[type] as Schema);

describe('docs/asyncapi.json matches the agent-token code', () => {
  it('describes the agent-token topic behind the installation prefix, with one message per event type the decider writes', () => {
    expect(channel['address']).toBe(`{topicPrefix}${AGENT_TOKEN_EVENT_TOPIC}`);
    expect([...new Set(written.map((e) => e.type))].sort()).toEqual(TYPES);
    expect(Object.keys(channel['messages'] as object).sort()).toEqual(TYPES);
    for (const type of TYPES) expect(message(type)['name']).toBe(type);
  });

  it.each(TYPES)('%s: the data schema requires exactly the fields the decider writes, and allows no others', (type) => {
    const schema = deref(deref(message(type)['payload'] as Schema)['properties'] as Schema);
    const data = deref(schema['data'] as Schema);
    for (const event of written.filter((e) => e.type === type)) expect([...(data['required'] as string[])].sort()).toEqual(Object.keys(event.data).sort());
    expect(Object.keys(data['properties'] as object).sort()).toEqual([...(data['required'] as string[])].sort());
    expect(data['additionalProperties']).toBe(false);
  });

  it('accepts every event the decider writes, and refuses a changed one', () => {
    for (const event of written) expect(problems(message(event.type)['payload'] as Schema, event)).toEqual([]);
    const created = written[0] as (typeof written)[number];
    expect(problems(message('RoomCreated')['payload'] as Schema, { ...created, data: { ...created.data, authToken: 'x' } })).not.toEqual([]);
    expect(problems(message('RoomCreated')['payload'] as Schema, { ...created, streamId: 'room-1' })).not.toEqual([]);
  });

  it.each(TYPES)('%s: the example is valid, and its data is the example on docs/events.md', (type) => {
    const [example] = message(type)['examples'] as { payload: { data: object }; headers: Schema }[];
    expect(problems(message(type)['payload'] as Schema, example?.payload)).toEqual([]);
    expect(problems(message(type)['headers'] as Schema, example?.headers)).toEqual([]);
    const blocks = [...eventsMd.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => JSON.parse(m[1] as string) as object);
    expect(blocks).toContainEqual(example?.payload.data);
  });
});
