/** Public event topic of agent-token: every event below, keyed by stream id, kept forever. */
export const AGENT_TOKEN_EVENT_TOPIC = 'agent-token.events.v1';

export const roomStreamId = (roomId: string): string => `agent-room-${roomId}`;

/** sms-batch deduplicates by it, so a retried send of a room's guest link sends nothing twice (47 characters: within the 50 of a clientBatchId). */
export const guestLinkClientBatchId = (roomId: string): string => `guest-link-${roomId}`;

/** A room created together with an auth_token. No token is in any event: only their ids. */
export interface RoomCreatedV1 {
  roomId: string;
  accountId: string;
  subAccountId: string;
  callReference: string;
  /** True when the caller gave none and the service made it. */
  callReferenceGenerated: boolean;
  /** E.164 with `+`, or null when the caller sends the guest link itself. */
  phoneNumber: string | null;
  /** The agent identity of the auth_token (its `sub`) and the token's id (`jti`). */
  agentId: string;
  tokenId: string;
  /** Id of the signing key of the room's tokens (`kid`), so that the guest link can be issued again. */
  signingKeyId: string;
  createdAt: string;
  /** A guest waits this long for an agent; after it, without one, the room is expired. */
  expiresAt: string;
  /** When the room's auth_token (and guest link) stop being accepted. */
  tokenExpiresAt: string;
}

/** The first login of the room's agent; later logins record nothing. */
export interface AgentLoggedInV1 {
  roomId: string;
  agentId: string;
  tokenId: string;
  loggedInAt: string;
  /** True when the guest link is now to be sent by SMS (the room has a phone number). */
  guestLinkSmsDue: boolean;
}

/** The guest-link SMS handed to sms-batch; `text` is redacted, the link never appears. */
export interface GuestLinkSentV1 {
  roomId: string;
  batchId: string;
  umid: string;
  destination: string;
  /** sms-batch's decision: QUEUED, or REJECTED with the contract's description. */
  status: 'QUEUED' | 'REJECTED';
  description: string;
  sentAt: string;
}

/** No agent joined before `expiresAt`: the room is over. */
export interface RoomExpiredV1 {
  roomId: string;
  expiredAt: string;
  recordedAt: string;
}

export type RoomEvent =
  | { type: 'RoomCreated'; schemaVersion: 1; data: RoomCreatedV1 }
  | { type: 'AgentLoggedIn'; schemaVersion: 1; data: AgentLoggedInV1 }
  | { type: 'GuestLinkSent'; schemaVersion: 1; data: GuestLinkSentV1 }
  | { type: 'RoomExpired'; schemaVersion: 1; data: RoomExpiredV1 };

export type RoomEventType = RoomEvent['type'];
