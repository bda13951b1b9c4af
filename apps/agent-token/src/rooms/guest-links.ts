import type { RoomCreatedV1 } from '@seed/agent-token-contracts';
import type { AgentTokens } from '../tokens/agent-tokens';

/**
 * A room's guest link: `${base}/<guest token>`, the token valid for that room only. It is issued
 * again, identical, from the room's RoomCreated whenever it is needed (the token response, the
 * agent's session, the SMS), so it is never stored.
 */
export class GuestLinks {
  constructor(
    private readonly tokens: AgentTokens,
    readonly baseUrl: string,
  ) {}

  async linkFor(room: RoomCreatedV1): Promise<string> {
    // The guest may open the link as long as the room can be used: until its expiry, or, once
    // an agent joined, until the agent's token expires (whichever is later).
    const expiresAt = new Date(Math.max(Date.parse(room.expiresAt), Date.parse(room.tokenExpiresAt)));
    const token = await this.tokens.signGuestToken({ roomId: room.roomId, issuedAt: new Date(room.createdAt), expiresAt }, room.signingKeyId);
    return `${this.baseUrl}/${token}`;
  }

  /** What logs, events and read models may show instead of a link. */
  get redactedLink(): string {
    return `${this.baseUrl}/[guest-token]`;
  }
}
