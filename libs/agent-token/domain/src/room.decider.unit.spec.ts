import type { GuestLinkSentV1, RoomCreatedV1, RoomEvent } from '@seed/agent-token-contracts';
import { activeUntil, decideRoom, foldRoom, RoomError, roomStateAt, type RoomCommand } from './room.decider';

const T0 = '2026-11-22T10:00:00.000Z';
const at = (seconds: number) => new Date(Date.parse(T0) + seconds * 1000).toISOString();

const room = (extra: Partial<RoomCreatedV1> = {}): RoomCreatedV1 => ({
  roomId: 'r-1',
  accountId: 'acme',
  subAccountId: 'acme_hq',
  callReference: 'call-0001',
  callReferenceGenerated: false,
  phoneNumber: '+447911123456',
  agentId: 'agent-1',
  tokenId: 'tok-1',
  signingKeyId: 'k1',
  createdAt: T0,
  expiresAt: at(900),
  tokenExpiresAt: at(3600),
  ...extra,
});
const created = (extra: Partial<RoomCreatedV1> = {}): RoomEvent => ({ type: 'RoomCreated', schemaVersion: 1, data: room(extra) });
const login = (seconds: number, extra: Partial<Extract<RoomCommand, { type: 'LogIn' }>> = {}): RoomCommand => ({
  type: 'LogIn',
  agentId: 'agent-1',
  tokenId: 'tok-1',
  now: at(seconds),
  holdsCallReference: true,
  ...extra,
});
const joined = (seconds: number, due = true): RoomEvent => ({
  type: 'AgentLoggedIn',
  schemaVersion: 1,
  data: { roomId: 'r-1', agentId: 'agent-1', tokenId: 'tok-1', loggedInAt: at(seconds), guestLinkSmsDue: due },
});
const sms: GuestLinkSentV1 = {
  roomId: 'r-1',
  batchId: 'b-1',
  umid: 'u-1',
  destination: '447911123456',
  status: 'QUEUED',
  description: 'SMS is accepted and queued for processing',
  sentAt: at(61),
};

/** given these events, when this command, then these events */
const given = (events: RoomEvent[]) => ({ when: (command: RoomCommand) => decideRoom(command, foldRoom(events)) });

describe('room decider', () => {
  describe('CreateRoom', () => {
    it('creates a waiting room', () => {
      expect(given([]).when({ type: 'CreateRoom', room: room() })).toEqual([created()]);
      const state = foldRoom([created()]);
      expect(state.status).toBe('waiting');
    });

    it('refuses to create a room twice', () => {
      expect(() => given([created()]).when({ type: 'CreateRoom', room: room() })).toThrow(RoomError);
    });
  });

  describe('LogIn', () => {
    it('joins a waiting room on the first login, with the SMS due when the room has a phone number', () => {
      expect(given([created()]).when(login(60))).toEqual([joined(60, true)]);
    });

    it('has no SMS due for a room without a phone number', () => {
      expect(given([created({ phoneNumber: null })]).when(login(60))).toEqual([joined(60, false)]);
    });

    it('decides nothing on a second login: the SMS can never be due twice', () => {
      expect(given([created(), joined(60)]).when(login(120))).toEqual([]);
      expect(given([created(), joined(60)]).when(login(5000))).toEqual([]);
    });

    it('joins up to the last moment before the expiry, and records the expiry at it', () => {
      expect(given([created()]).when(login(899))).toEqual([joined(899)]);
      expect(given([created()]).when(login(900))).toEqual([
        { type: 'RoomExpired', schemaVersion: 1, data: { roomId: 'r-1', expiredAt: at(900), recordedAt: at(900) } },
      ]);
    });

    it('joins nothing once a later room took the call_reference over, even where this clock is not yet at the expiry', () => {
      expect(given([created()]).when(login(899, { holdsCallReference: false }))).toEqual([
        { type: 'RoomExpired', schemaVersion: 1, data: { roomId: 'r-1', expiredAt: at(900), recordedAt: at(899) } },
      ]);
    });

    it('decides nothing for a room whose expiry is recorded', () => {
      const expired: RoomEvent = { type: 'RoomExpired', schemaVersion: 1, data: { roomId: 'r-1', expiredAt: at(900), recordedAt: at(950) } };
      expect(given([created(), expired]).when(login(1000))).toEqual([]);
    });

    it('refuses a token that is not the room’s own, and a room that does not exist', () => {
      expect(() => given([created()]).when(login(60, { tokenId: 'tok-2' }))).toThrow(RoomError);
      expect(() => given([created()]).when(login(60, { agentId: 'agent-2' }))).toThrow(RoomError);
      expect(() => given([]).when(login(60))).toThrow(expect.objectContaining({ reason: 'no-such-room' }));
    });
  });

  describe('RecordGuestLinkSms', () => {
    it('records the SMS once after the agent joined', () => {
      expect(given([created(), joined(60)]).when({ type: 'RecordGuestLinkSms', sms })).toEqual([
        { type: 'GuestLinkSent', schemaVersion: 1, data: sms },
      ]);
      const sent: RoomEvent = { type: 'GuestLinkSent', schemaVersion: 1, data: sms };
      expect(given([created(), joined(60), sent]).when({ type: 'RecordGuestLinkSms', sms })).toEqual([]);
    });

    it('records nothing before a join or without a phone number', () => {
      expect(given([created()]).when({ type: 'RecordGuestLinkSms', sms })).toEqual([]);
      expect(given([created({ phoneNumber: null }), joined(60, false)]).when({ type: 'RecordGuestLinkSms', sms })).toEqual([]);
    });
  });

  describe('Expire (controlled clock)', () => {
    it('expires a waiting room at its expiry, not before', () => {
      expect(given([created()]).when({ type: 'Expire', now: at(899.999) })).toEqual([]);
      expect(given([created()]).when({ type: 'Expire', now: at(900) })).toEqual([
        { type: 'RoomExpired', schemaVersion: 1, data: { roomId: 'r-1', expiredAt: at(900), recordedAt: at(900) } },
      ]);
    });

    it('never expires a room an agent joined, and never expires one twice', () => {
      expect(given([created(), joined(60)]).when({ type: 'Expire', now: at(100_000) })).toEqual([]);
      const expired: RoomEvent = { type: 'RoomExpired', schemaVersion: 1, data: { roomId: 'r-1', expiredAt: at(900), recordedAt: at(901) } };
      expect(given([created(), expired]).when({ type: 'Expire', now: at(1000) })).toEqual([]);
    });
  });

  describe('what readers see', () => {
    it('reads a waiting room past its expiry as expired before the expiry is recorded', () => {
      const state = foldRoom([created()]);
      if (state.status === 'none') throw new Error('unreachable');
      expect(roomStateAt(state, at(899))).toBe('waiting');
      expect(roomStateAt(state, at(900))).toBe('expired');
    });

    it('reads a joined room as agent_joined at any time', () => {
      const state = foldRoom([created(), joined(60)]);
      if (state.status === 'none') throw new Error('unreachable');
      expect(roomStateAt(state, at(100_000))).toBe('agent_joined');
    });

    it('keeps the call_reference taken until the expiry, or until the token expires once an agent joined', () => {
      const waiting = foldRoom([created()]);
      const withAgent = foldRoom([created(), joined(60)]);
      if (waiting.status === 'none' || withAgent.status === 'none') throw new Error('unreachable');
      expect(activeUntil(waiting)).toBe(at(900));
      expect(activeUntil(withAgent)).toBe(at(3600));
    });
  });
});
