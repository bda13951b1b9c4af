import { randomBytes, randomUUID } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import { Controller } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import { DataSource } from 'typeorm';
import { ApiErrorCode, type CommandReply } from '@seed/contracts';
import type { AgentTokenResponse, CreateAgentTokenCommand, RoomCreatedV1, SealedReply } from '@seed/agent-token-contracts';
import { CALL_REFERENCE, generateCallReference } from '@seed/agent-token-domain';
import { CommandPipeline, commitDeadline, CommitDeadlinePassed, ConcurrencyError, PAST_DEADLINE_REPLY, pastCommandDeadline, type AppendToStream, type Decision, type SqlExecutor } from '@seed/platform-event-store';
import type { CommandContext } from '@seed/platform-kafka';
import { AgentTokenConfig } from '../agent-token.config';
import { CallReferences } from '../rooms/call-references';
import { GuestLinks } from '../rooms/guest-links';
import { RoomStore } from '../rooms/room-store';
import { SealedWire } from '../sealed-wire';
import { AgentTokens, type AgentClaims } from './agent-tokens';

const CONSUMER = 'create-agent-token';
const E164 = /^\+[1-9]\d{6,14}$/;

/** What a processed command keeps, so that a redelivered command gets the same token back. */
interface IssuedToken {
  tokenId: string;
  agentId: string;
  accountId: string;
  issuedAt: string;
  expiresAt: string;
  keyId: string;
  roomId: string | null;
}

class DuplicateCallReference extends Error {}

/**
 * `POST /api/v1/tokens`: issues an auth_token and, with `createRoom`, creates the room in the
 * same transaction that reserves its call_reference and records the command as processed.
 */
@Controller()
export class CreateTokenHandler {
  constructor(
    private readonly dataSource: DataSource,
    private readonly rooms: RoomStore,
    private readonly callReferences: CallReferences,
    private readonly pipeline: CommandPipeline,
    private readonly tokens: AgentTokens,
    private readonly links: GuestLinks,
    private readonly wire: SealedWire,
    private readonly config: AgentTokenConfig,
  ) {}

  @MessagePattern('CreateAgentToken')
  async create(@Payload() command: CreateAgentTokenCommand, @Ctx() context: CommandContext): Promise<CommandReply<SealedReply>> {
    const { data } = command;
    // Waited in the queue longer than the gateway waits: the caller already has a 503 and may be
    // retrying; a room made now would be nobody's and answer that retry 409 while it waits.
    if (pastCommandDeadline(command.issuedAt, this.config.AGENT_MAX_COMMAND_AGE_MS)) return PAST_DEADLINE_REPLY;
    // The gateway checked all of this; a command from elsewhere is checked again rather than trusted.
    if (data.callReference !== undefined && !CALL_REFERENCE.test(data.callReference)) {
      return failure(400, ApiErrorCode.InvalidParameter, 'call_reference must be 8 to 20 characters of A-Z, a-z, 0-9, _ and -');
    }
    if (data.phoneNumber !== undefined && !E164.test(data.phoneNumber)) {
      return failure(400, ApiErrorCode.InvalidMsisdn, 'phone_number must be an international number in E.164 format');
    }
    try {
      const now = new Date();
      const metadata = { correlationId: context.correlationId, causationId: command.commandId, traceparent: context.traceparent, occurredAt: now.toISOString() };
      const issued = await this.pipeline.run({ consumer: CONSUMER, commandId: command.commandId, metadata }, async (tx) => ({
        ...(await this.issue(tx, command, now)),
        commitBy: commitDeadline(command.issuedAt, this.config.AGENT_MAX_COMMAND_AGE_MS),
      }));
      const room = issued.roomId ? await this.roomOf(this.dataSource.manager, issued.roomId) : null;
      return { ok: true, result: this.wire.reply(await this.response(issued, room)) };
    } catch (error) {
      // The deadline passed while deciding (a slow database): rolled back, no room made.
      if (error instanceof CommitDeadlinePassed) return PAST_DEADLINE_REPLY;
      if (error instanceof DuplicateCallReference) {
        return failure(409, ApiErrorCode.InvalidParameter, `call_reference ${data.callReference} is in use by an active room of this account`);
      }
      throw error;
    }
  }

  /** The token and, with `createRoom`, the room, its call_reference reserved in the same transaction. */
  private async issue(tx: SqlExecutor, command: CreateAgentTokenCommand, now: Date): Promise<Decision<IssuedToken>> {
    const { data } = command;
    const issued: IssuedToken = {
      tokenId: randomUUID(),
      agentId: `agent-${randomUUID()}`,
      accountId: data.accountId,
      issuedAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + this.config.AGENT_TOKEN_TTL_SECONDS * 1000).toISOString(),
      keyId: this.tokens.currentKeyId,
      roomId: data.createRoom ? uuidv7() : null,
    };
    const appends: AppendToStream[] = [];
    if (issued.roomId) {
      const room: RoomCreatedV1 = {
        roomId: issued.roomId,
        accountId: data.accountId,
        subAccountId: data.subAccountId,
        callReference: data.callReference ?? generateCallReference(randomBytes(12)),
        callReferenceGenerated: data.callReference === undefined,
        phoneNumber: data.phoneNumber ?? null,
        agentId: issued.agentId,
        tokenId: issued.tokenId,
        signingKeyId: issued.keyId,
        createdAt: issued.issuedAt,
        expiresAt: new Date(now.getTime() + this.config.ROOM_VALIDITY_SECONDS * 1000).toISOString(),
        tokenExpiresAt: issued.expiresAt,
      };
      const reserved = await this.callReferences.reserve(tx, room.accountId, room.callReference, room.roomId, room.expiresAt, issued.issuedAt);
      if (!reserved) {
        // A generated reference that happens to be taken is simply drawn again.
        if (room.callReferenceGenerated) throw new ConcurrencyError('generated call_reference taken');
        throw new DuplicateCallReference();
      }
      appends.push(...(await this.rooms.decide(tx, room.roomId, { type: 'CreateRoom', room })).appends);
    }
    return { appends, result: issued };
  }

  private async roomOf(db: SqlExecutor, roomId: string): Promise<RoomCreatedV1> {
    const { state } = await this.rooms.load(db, roomId);
    if (state.status === 'none') throw new Error(`room ${roomId} is recorded as created but has no events`);
    return state.room;
  }

  private async response(issued: IssuedToken, room: RoomCreatedV1 | null): Promise<AgentTokenResponse> {
    const claims: AgentClaims = {
      tokenId: issued.tokenId,
      agentId: issued.agentId,
      accountId: issued.accountId,
      roomId: issued.roomId,
      issuedAt: new Date(issued.issuedAt),
      expiresAt: new Date(issued.expiresAt),
    };
    const authToken = await this.tokens.signAgentTokenWith(claims, issued.keyId);
    if (!room) return { auth_token: authToken };
    return { auth_token: authToken, call_reference: room.callReference, guest_link: this.links.linkFor(room) };
  }
}

function failure(status: number, code: number, message: string): CommandReply<SealedReply> {
  return { ok: false, failure: { status, code, message } };
}
