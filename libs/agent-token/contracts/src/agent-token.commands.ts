import type { CommandMessage } from '@seed/contracts';

/** Topic agent-token consumes its commands from. */
export const AGENT_TOKEN_COMMAND_TOPIC = 'agent-token.commands.v1';

/**
 * Tokens never cross Kafka in clear: the gateway seals the bearer token it forwards, and the
 * service seals every answer that carries a token or a guest link (`sealText` with the shared
 * MESSAGE_SEALING_KEYS). The types below are what is inside the seal.
 */
export interface SealedReply {
  sealed: string;
}

/** `POST /api/v1/tokens`, checked for shape by the gateway; the account comes from the API key. */
export interface CreateAgentTokenData {
  accountId: string;
  /** The sub-account the guest-link SMS is sent from: the account's `<accountId>_hq`. */
  subAccountId: string;
  createRoom: boolean;
  /** 8..20 of [A-Za-z0-9_-]; generated (12 characters) when a room is created without one. */
  callReference?: string;
  /** E.164 with `+`, already validated by the gateway. */
  phoneNumber?: string;
}
export type CreateAgentTokenCommand = CommandMessage<CreateAgentTokenData, 'CreateAgentToken'>;

/** The contract's token creation response body (inside the sealed reply). */
export interface AgentTokenResponse {
  auth_token: string;
  call_reference?: string;
  guest_link?: string;
}

/** `POST /api/v1/sessions`: an agent presents its auth_token. */
export interface StartAgentSessionData {
  /** The bearer auth_token, sealed. */
  sealedToken: string;
}
export type StartAgentSessionCommand = CommandMessage<StartAgentSessionData, 'StartAgentSession'>;

/** How a room looks to the agent and to the guest. */
export type RoomStateName = 'waiting' | 'agent_joined' | 'expired';

export interface AgentSessionResponse {
  agent: {
    agent_id: string;
    account_id: string;
    /** When the auth_token stops being accepted (ISO UTC). */
    expires_at: string;
  };
  room: {
    call_reference: string;
    guest_link: string;
    state: RoomStateName;
    /** Until when a guest may wait for an agent (ISO UTC); no longer relevant once an agent joined. */
    expires_at: string;
    /** Whether the guest link is (or was) sent by SMS on the first login. */
    guest_link_sms: boolean;
  } | null;
}

/** `GET /guest/{guestToken}`: what the guest page shows. */
export interface GetGuestRoomData {
  sealedToken: string;
}
export type GetGuestRoomCommand = CommandMessage<GetGuestRoomData, 'GetGuestRoom'>;

export interface GuestRoomResponse {
  call_reference: string;
  state: RoomStateName;
  expires_at: string;
}

export type AgentTokenCommand = CreateAgentTokenCommand | StartAgentSessionCommand | GetGuestRoomCommand;
