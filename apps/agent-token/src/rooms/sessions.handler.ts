import { Controller, Inject } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import { DataSource } from 'typeorm';
import type { Logger } from 'pino';
import { ApiErrorCode, type CommandReply } from '@seed/contracts';
import type {
  AgentSessionResponse,
  GetGuestRoomCommand,
  GuestRoomResponse,
  SealedReply,
  StartAgentSessionCommand,
} from '@seed/agent-token-contracts';
import { activeUntil, roomStateAt, RoomError } from '@seed/agent-token-domain';
import { CommandPipeline } from '@seed/platform-event-store';
import type { CommandContext } from '@seed/platform-kafka';
import { LOGGER } from '@seed/platform-nest';
import { SealedWire, UnreadableSealError } from '../sealed-wire';
import { AgentTokens, InvalidTokenError, type AgentClaims } from '../tokens/agent-tokens';
import { GuestTokens } from '../tokens/guest-tokens';
import { CallReferences } from './call-references';
import { GuestLinks, guestLinkValidUntil } from './guest-links';
import { RoomStore, type RoomDecision } from './room-store';

const UNAUTHORIZED = { ok: false, failure: { status: 401, code: ApiErrorCode.Unauthorized, message: 'invalid or expired token' } } as const;

/**
 * An agent's login (`POST /api/v1/sessions`) and the guest page's look at a room. The first login
 * of a waiting room joins it, which makes the guest-link SMS due (sent by GuestLinkSmsSender, a
 * follower of the log); concurrent logins meet on the room stream's expected version, so only
 * one of them joins.
 */
@Controller()
export class SessionsHandler {
  constructor(
    private readonly dataSource: DataSource,
    private readonly rooms: RoomStore,
    private readonly callReferences: CallReferences,
    private readonly pipeline: CommandPipeline,
    private readonly tokens: AgentTokens,
    private readonly guestTokens: GuestTokens,
    private readonly links: GuestLinks,
    private readonly wire: SealedWire,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  @MessagePattern('StartAgentSession')
  async start(@Payload() command: StartAgentSessionCommand, @Ctx() context: CommandContext): Promise<CommandReply<SealedReply>> {
    const now = new Date();
    let claims: AgentClaims;
    try {
      claims = await this.tokens.verifyAgentToken(this.wire.open(command.data.sealedToken), now);
    } catch (error) {
      if (error instanceof InvalidTokenError || error instanceof UnreadableSealError) {
        this.logger.info({ reason: error.message }, 'agent login refused');
        return UNAUTHORIZED;
      }
      throw error;
    }
    const agent = { agent_id: claims.agentId, account_id: claims.accountId, expires_at: claims.expiresAt.toISOString() };
    const roomId = claims.roomId;
    if (!roomId) return { ok: true, result: this.wire.reply({ agent, room: null } satisfies AgentSessionResponse) };

    try {
      const decision = await this.logIn(roomId, claims, now, command, context);
      const state = decision.after;
      if (state.status === 'none') return UNAUTHORIZED;
      if (decision.events.some((e) => e.type === 'AgentLoggedIn')) this.logger.info({ roomId, agentId: claims.agentId }, 'agent joined the room');
      const body: AgentSessionResponse = {
        agent,
        room: {
          call_reference: state.room.callReference,
          guest_link: this.links.linkFor(state.room),
          state: roomStateAt(state, now.toISOString()),
          expires_at: state.room.expiresAt,
          guest_link_sms: state.room.phoneNumber !== null,
        },
      };
      return { ok: true, result: this.wire.reply(body) };
    } catch (error) {
      if (error instanceof RoomError) {
        this.logger.warn({ roomId, reason: error.reason }, 'agent login refused');
        return UNAUTHORIZED;
      }
      throw error;
    }
  }

  /**
   * Decides the login; the first one also keeps the room's call_reference for as long as its token
   * lives. The reservation is locked first: a creation taking the reference over at the room's
   * expiry either waits for this login or has already made the room one that cannot be joined,
   * so two active rooms never share a reference.
   */
  private logIn(roomId: string, claims: AgentClaims, now: Date, command: StartAgentSessionCommand, context: CommandContext): Promise<RoomDecision> {
    const metadata = { correlationId: context.correlationId, causationId: command.commandId, traceparent: context.traceparent, occurredAt: now.toISOString() };
    return this.pipeline.run({ consumer: 'agent-sessions', commandId: null, metadata }, async (tx) => {
      const holdsCallReference = await this.callReferences.holdFor(tx, roomId);
      const decision = await this.rooms.decide(tx, roomId, { type: 'LogIn', agentId: claims.agentId, tokenId: claims.tokenId, now: now.toISOString(), holdsCallReference });
      const { after, events } = decision.result;
      if (after.status === 'joined' && events.some((e) => e.type === 'AgentLoggedIn')) await this.callReferences.extend(tx, roomId, activeUntil(after));
      return decision;
    });
  }

  /** Reads only: a room past its expiry reads expired whether or not RoomExpired is recorded yet. */
  @MessagePattern('GetGuestRoom')
  async guestRoom(@Payload() command: GetGuestRoomCommand): Promise<CommandReply<SealedReply>> {
    const now = new Date();
    const invalid = { ok: false, failure: { status: 401, code: ApiErrorCode.Unauthorized, message: 'this guest link is not valid or has expired' } } as const;
    let roomId: string;
    try {
      ({ roomId } = this.guestTokens.verify(this.wire.open(command.data.sealedToken)));
    } catch (error) {
      if (error instanceof InvalidTokenError || error instanceof UnreadableSealError) return invalid;
      throw error;
    }
    const { state } = await this.rooms.load(this.dataSource.manager, roomId);
    if (state.status === 'none') return { ok: false, failure: { status: 404, code: ApiErrorCode.NotFound, message: 'no such room' } };
    if (now.getTime() >= guestLinkValidUntil(state.room)) return invalid;
    const body: GuestRoomResponse = {
      call_reference: state.room.callReference,
      state: roomStateAt(state, now.toISOString()),
      expires_at: state.room.expiresAt,
    };
    return { ok: true, result: this.wire.reply(body) };
  }
}
