import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { guestLinkClientBatchId, type AgentLoggedInV1, type GuestLinkSentV1, type RoomCreatedV1 } from '@seed/agent-token-contracts';
import type { CommandMessage } from '@seed/contracts';
import type { EventHandler, SqlExecutor, StoredEvent } from '@seed/platform-event-store';
import type { CommandBus } from '@seed/platform-kafka';
import { SMS_BATCH_SERVICE_COMMAND_TOPIC, type BatchResponse, type SubmitBatchData } from '@seed/sms-batch-contracts';
import type { GuestLinks } from '../rooms/guest-links';
import type { RoomStore } from '../rooms/room-store';
import type { SealedWire } from '../sealed-wire';

/** Guest-link SMS in flight at once per batch of the log. */
const PARALLEL_SENDS = 50;

export interface GuestLinkSmsSettings {
  /** `{link}` is replaced by the link. */
  text: string;
  source: string;
}

/**
 * Follows the log and sends the guest link by SMS for every AgentLoggedIn that made it due, then
 * records GuestLinkSent — in the transaction that advances its checkpoint. A crash anywhere in
 * between repeats the send, and sms-batch answers a repeated clientBatchId with the first batch,
 * so the guest gets one SMS. The real text travels sealed; sms-batch's events see it redacted.
 */
export class GuestLinkSmsSender implements EventHandler {
  readonly name = 'guest-link-sms';
  readonly types = ['AgentLoggedIn'];

  constructor(
    private readonly rooms: RoomStore,
    private readonly links: GuestLinks,
    private readonly wire: SealedWire,
    private readonly bus: Pick<CommandBus, 'request'>,
    private readonly settings: GuestLinkSmsSettings,
    private readonly logger: Logger,
  ) {}

  async handle(events: readonly StoredEvent[], db: SqlExecutor): Promise<void> {
    const due: { event: StoredEvent; room: RoomCreatedV1; destination: string }[] = [];
    for (const event of events) {
      const joined = event.data as AgentLoggedInV1;
      if (!joined.guestLinkSmsDue) continue;
      const { state } = await this.rooms.load(db, joined.roomId);
      if (state.status === 'none' || state.guestLinkSms !== null || state.room.phoneNumber === null) continue;
      due.push({ event, room: state.room, destination: state.room.phoneNumber });
    }
    // The sends of one batch overlap: each is a request-reply round trip to sms-batch, and rooms
    // are independent (one clientBatchId each). Any failure rolls the batch back; resent, the ones
    // that went through get their first answer again.
    for (let i = 0; i < due.length; i += PARALLEL_SENDS) {
      const chunk = due.slice(i, i + PARALLEL_SENDS);
      const sent = await Promise.all(chunk.map(({ event, room, destination }) => this.send(event, room, destination)));
      for (const [j, sms] of sent.entries()) {
        const { event, room } = chunk[j] as (typeof chunk)[number];
        await this.rooms.execute(db, room.roomId, { type: 'RecordGuestLinkSms', sms }, {
          correlationId: event.correlationId,
          causationId: event.eventId,
          traceparent: event.traceparent,
          occurredAt: sms.sentAt,
        });
        this.logger.info({ roomId: room.roomId, umid: sms.umid, status: sms.status }, 'guest link sent by SMS');
      }
    }
  }

  private async send(event: StoredEvent, room: RoomCreatedV1, destination: string): Promise<GuestLinkSentV1> {
    const link = this.links.linkFor(room);
    const data: SubmitBatchData = {
      accountId: room.accountId,
      subAccountId: room.subAccountId,
      clientBatchId: guestLinkClientBatchId(room.roomId),
      includeMessagesInResponse: true,
      messages: [
        {
          destination,
          text: this.settings.text.replaceAll('{link}', this.links.redactedLink),
          sealedText: this.wire.seal(this.settings.text.replaceAll('{link}', link)),
          ...(this.settings.source ? { source: this.settings.source } : {}),
        },
      ],
    };
    const command: CommandMessage<SubmitBatchData> = { commandId: randomUUID(), type: 'SubmitBatch', issuedAt: new Date().toISOString(), data };
    const reply = await this.bus.request<BatchResponse>(SMS_BATCH_SERVICE_COMMAND_TOPIC, room.subAccountId, command, event.correlationId, event.traceparent);
    // Not sent (sms-batch unavailable or refusing): throwing rolls back and the same event comes again.
    if (!reply.ok) throw new Error(`guest-link SMS for room ${room.roomId} not accepted: ${reply.failure.status} ${reply.failure.message}`);
    const message = reply.result.messages?.[0];
    if (!message) throw new Error(`sms-batch answered the guest-link SMS of room ${room.roomId} without its message`);
    return {
      roomId: room.roomId,
      batchId: reply.result.batchId,
      umid: message.umid,
      destination: message.destination,
      status: message.status.code,
      description: message.status.description,
      sentAt: new Date().toISOString(),
    };
  }
}
