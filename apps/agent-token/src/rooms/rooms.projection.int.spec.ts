import type { DataSource } from 'typeorm';
import type { RoomCreatedV1, RoomEvent } from '@seed/agent-token-contracts';
import { EventStore, replayProjection, type StoredEvent } from '@seed/platform-event-store';
import { dropSchema, eventually, openTestDataSource, testLogger, uniqueName } from '@seed/platform-testing';
import { migrateAgentTokenSchema } from '../agent-token.test-helpers';
import { RoomsProjection } from './rooms.projection';

const schema = uniqueName('it_rooms_projection');
const store = new EventStore(schema);
const projection = new RoomsProjection(schema);
let ds: DataSource;

const room = (roomId: string, callReference: string): RoomCreatedV1 => ({
  roomId,
  accountId: 'acme',
  subAccountId: 'acme_hq',
  callReference,
  callReferenceGenerated: false,
  phoneNumber: '+447911123456',
  agentId: 'agent-1',
  tokenId: '1b2c3d4e-5f60-4718-9a2b-3c4d5e6f7a8b',
  signingKeyId: 'k1',
  createdAt: '2030-01-15T10:00:00.000Z',
  expiresAt: '2030-01-15T10:15:00.000Z',
  tokenExpiresAt: '2030-01-15T11:00:00.000Z',
});
const JOINED = '0193f0a4-5b6c-7d8e-9f01-23456789abcd';
const EXPIRED = '0193f0b1-2c3d-7e4f-8a5b-6c7d8e9f0a1b';
const UMID = '0193f0a7-1c2e-7a1b-9c2d-3e4f5a6b7c8d';
const streams: [string, RoomEvent[]][] = [
  [
    JOINED,
    [
      { type: 'RoomCreated', schemaVersion: 1, data: room(JOINED, 'case-0001') },
      { type: 'AgentLoggedIn', schemaVersion: 1, data: { roomId: JOINED, agentId: 'agent-1', tokenId: 't', loggedInAt: '2030-01-15T10:03:00.000Z', guestLinkSmsDue: true } },
      {
        type: 'GuestLinkSent',
        schemaVersion: 1,
        data: { roomId: JOINED, batchId: UMID, umid: UMID, destination: '447911123456', status: 'QUEUED', description: 'queued', sentAt: '2030-01-15T10:03:01.000Z' },
      },
    ],
  ],
  [
    EXPIRED,
    [
      { type: 'RoomCreated', schemaVersion: 1, data: room(EXPIRED, 'case-0002') },
      { type: 'RoomExpired', schemaVersion: 1, data: { roomId: EXPIRED, expiredAt: '2030-01-15T10:15:00.000Z', recordedAt: '2030-01-15T10:15:04.000Z' } },
    ],
  ],
];

const rows = () => ds.query(`SELECT * FROM "${schema}".rooms ORDER BY room_id`);
let stored: StoredEvent[];

beforeAll(async () => {
  ds = await openTestDataSource(3);
  await migrateAgentTokenSchema(ds, schema);
  stored = await ds.transaction((tx) =>
    store.append(tx, streams.map(([roomId, events]) => ({ streamId: `agent-room-${roomId}`, expectedVersion: 0, events })), {
      correlationId: 'c',
      causationId: null,
      occurredAt: '2030-01-15T10:00:00.000Z',
    }),
  );
});

afterAll(async () => {
  await dropSchema(ds, schema);
  await ds.destroy();
});

describe('rooms read model', () => {
  it('keeps one row per room with its state, the same when every event comes twice', async () => {
    await ds.transaction((tx) => projection.handle(stored, tx));
    const once = await rows();
    expect(once.map((r: Record<string, unknown>) => [r['room_id'], r['call_reference'], r['state'], r['guest_sms_umid']])).toEqual([
      [JOINED, 'case-0001', 'agent_joined', UMID],
      [EXPIRED, 'case-0002', 'expired', null],
    ]);
    await ds.transaction((tx) => projection.handle(stored, tx));
    expect(await rows()).toEqual(once);
  });

  it('is rebuilt identically from the log by a replay', async () => {
    const before = await rows();
    // A replay reads the log up to what no open transaction can still add to; another test file's
    // transaction may hold that back for a moment after beforeAll's append, so it is run again.
    const events = await eventually(async () => {
      const replayed = await replayProjection(ds, store, projection, testLogger());
      return replayed === 5 ? replayed : undefined;
    });
    expect(events).toBe(5);
    expect(await rows()).toEqual(before);
  });
});
