import type {
  AgentLoggedInV1,
  GuestLinkSentV1,
  RoomCreatedV1,
  RoomEvent,
  RoomStateName,
} from '@seed/agent-token-contracts';

/** A room's life: created (waiting for its agent) -> agent joined, or -> expired. */
export type RoomState =
  | { status: 'none' }
  | {
      status: 'waiting' | 'joined' | 'expired';
      room: RoomCreatedV1;
      joinedAt: string | null;
      guestLinkSms: GuestLinkSentV1 | null;
    };

export type RoomCommand =
  | { type: 'CreateRoom'; room: RoomCreatedV1 }
  | {
      type: 'LogIn';
      agentId: string;
      tokenId: string;
      now: string;
      /**
       * False once a later room of the account holds the room's call_reference: it was taken over
       * at the room's expiry by the clock of the request that took it, which may run ahead of `now`.
       */
      holdsCallReference: boolean;
    }
  | { type: 'RecordGuestLinkSms'; sms: GuestLinkSentV1 }
  | { type: 'Expire'; now: string };

/** A command that cannot apply to the room as it is; the handler maps it to an answer. */
export class RoomError extends Error {
  constructor(
    readonly reason: 'room-exists' | 'no-such-room' | 'not-this-rooms-token',
    message: string,
  ) {
    super(message);
  }
}

export const initialRoomState = (): RoomState => ({ status: 'none' });

/**
 * Pure: time comes in with the command. A command whose outcome already happened decides nothing,
 * so retries and concurrent logins are safe: only the first login of a waiting room joins it.
 */
export function decideRoom(command: RoomCommand, state: RoomState): RoomEvent[] {
  switch (command.type) {
    case 'CreateRoom':
      if (state.status !== 'none') throw new RoomError('room-exists', `room ${command.room.roomId} exists`);
      return [{ type: 'RoomCreated', schemaVersion: 1, data: command.room }];
    case 'LogIn': {
      if (state.status === 'none') throw new RoomError('no-such-room', 'the token names a room that does not exist');
      if (state.room.tokenId !== command.tokenId || state.room.agentId !== command.agentId) {
        throw new RoomError('not-this-rooms-token', 'the token is not the one issued with this room');
      }
      if (state.status !== 'waiting') return [];
      if (isPast(state.room.expiresAt, command.now) || !command.holdsCallReference) return [expired(state.room, command.now)];
      const joined: AgentLoggedInV1 = {
        roomId: state.room.roomId,
        agentId: command.agentId,
        tokenId: command.tokenId,
        loggedInAt: command.now,
        guestLinkSmsDue: state.room.phoneNumber !== null,
      };
      return [{ type: 'AgentLoggedIn', schemaVersion: 1, data: joined }];
    }
    case 'RecordGuestLinkSms':
      if (state.status !== 'joined' || state.room.phoneNumber === null || state.guestLinkSms !== null) return [];
      return [{ type: 'GuestLinkSent', schemaVersion: 1, data: command.sms }];
    case 'Expire':
      if (state.status !== 'waiting' || !isPast(state.room.expiresAt, command.now)) return [];
      return [expired(state.room, command.now)];
  }
}

export function evolveRoom(state: RoomState, event: RoomEvent): RoomState {
  switch (event.type) {
    case 'RoomCreated':
      return { status: 'waiting', room: event.data, joinedAt: null, guestLinkSms: null };
    case 'AgentLoggedIn':
      return state.status === 'none' ? state : { ...state, status: 'joined', joinedAt: event.data.loggedInAt };
    case 'GuestLinkSent':
      return state.status === 'none' ? state : { ...state, guestLinkSms: event.data };
    case 'RoomExpired':
      return state.status === 'none' ? state : { ...state, status: 'expired' };
  }
}

export const foldRoom = (events: readonly RoomEvent[]): RoomState => events.reduce(evolveRoom, initialRoomState());

/**
 * The state a reader sees at `now`: a waiting room past its expiry reads expired even before
 * the expiry is recorded, so answers never depend on when the recording happens.
 */
export function roomStateAt(state: Exclude<RoomState, { status: 'none' }>, now: string): RoomStateName {
  if (state.status === 'joined') return 'agent_joined';
  if (state.status === 'expired' || isPast(state.room.expiresAt, now)) return 'expired';
  return 'waiting';
}

/**
 * Until when the room's call_reference stays taken among the account's active rooms: while a
 * guest may still wait (its expiry), and once an agent joined, while the room's token lives.
 */
export function activeUntil(state: Exclude<RoomState, { status: 'none' }>): string {
  return state.status === 'joined' ? state.room.tokenExpiresAt : state.room.expiresAt;
}

function expired(room: RoomCreatedV1, now: string): RoomEvent {
  return { type: 'RoomExpired', schemaVersion: 1, data: { roomId: room.roomId, expiredAt: room.expiresAt, recordedAt: now } };
}

function isPast(instant: string, now: string): boolean {
  return Date.parse(instant) <= Date.parse(now);
}
