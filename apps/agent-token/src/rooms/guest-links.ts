import type { RoomCreatedV1 } from '@seed/agent-token-contracts';
import type { GuestTokens } from '../tokens/guest-tokens';

/**
 * A room's guest link: `${base}/<guest token>`, the token valid for that room only. It is issued
 * again, identical, from the room's RoomCreated whenever it is needed (the token response, the
 * agent's session, the SMS), so it is never stored.
 */
export class GuestLinks {
  constructor(
    private readonly tokens: GuestTokens,
    readonly baseUrl: string,
  ) {}

  linkFor(room: RoomCreatedV1): string {
    return `${this.baseUrl}/${this.tokens.sign(room.roomId, room.signingKeyId)}`;
  }

  /** What logs, events and read models may show instead of a link. */
  get redactedLink(): string {
    return `${this.baseUrl}/[guest-token]`;
  }
}

/**
 * Until when a guest may open the link: while the room waits for its agent and, since the agent
 * may join up to its expiry, as long as the room's auth_token lives, whichever is later.
 */
export const guestLinkValidUntil = (room: RoomCreatedV1): number => Math.max(Date.parse(room.expiresAt), Date.parse(room.tokenExpiresAt));
