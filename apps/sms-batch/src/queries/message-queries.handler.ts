import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { DataSource } from 'typeorm';
import { ApiErrorCode, type CommandReply } from '@seed/contracts';
import { EventStore, quoteSchema, type StoredEvent } from '@seed/platform-event-store';
import { ServiceSchema } from '@seed/platform-nest';
import {
  batchStreamId,
  messageStreamId,
  type BatchSubmittedV1,
  QUEUED_DESCRIPTION,
  type BatchView,
  type GetBatchQuery,
  type GetMessageQuery,
  type MessageQueuedV1,
  type MessageRejectedV1,
  type MessageStateName,
  type MessageUndeliveredV1,
  type MessageView,
  type ReceiptRecordedV1,
  type MessageRoutedV1,
  type MessageSentV1,
} from '@seed/sms-batch-contracts';

const NOT_FOUND = { ok: false as const, failure: { status: 404, code: ApiErrorCode.NotFound, message: 'no such message or batch in this sub-account' } };

/**
 * The read API beyond the contract: one message with its history (from its stream), one batch
 * with counts per state (from the read models). Ids of another sub-account are answered as unknown.
 */
@Controller()
export class MessageQueriesHandler {
  private readonly s: string;

  constructor(
    private readonly dataSource: DataSource,
    private readonly store: EventStore,
    schema: ServiceSchema,
  ) {
    this.s = quoteSchema(schema.name);
  }

  @MessagePattern('GetMessage')
  async getMessage(@Payload() query: GetMessageQuery): Promise<CommandReply<MessageView>> {
    const events = await this.store.readStream(this.dataSource.manager, messageStreamId(query.data.umid));
    const first = events[0];
    const created = first?.data as (MessageQueuedV1 | MessageRejectedV1) | undefined;
    if (!first || !created || created.subAccountId !== query.data.subAccountId || created.accountId !== query.data.accountId) {
      return NOT_FOUND;
    }
    const history = events.map(toHistoryEntry);
    const last = [...history].reverse().find((h) => h.event !== 'ReceiptRecorded') ?? history[0];
    if (!last) return NOT_FOUND;
    const queued = first.type === 'MessageQueued' ? (created as MessageQueuedV1) : null;
    const { event: _event, carrierMessageIds: _ids, ...status } = last;
    return {
      ok: true,
      result: {
        umid: created.umid,
        batchId: created.batchId,
        clientBatchId: created.clientBatchId,
        clientMessageId: created.clientMessageId,
        subAccountId: created.subAccountId,
        destination: created.destination,
        source: created.source,
        encoding: created.encoding,
        smsCount: created.smsCount,
        scheduled: queued?.scheduled ?? null,
        expiry: queued?.expiry ?? null,
        status,
        history,
      },
    };
  }

  /** A batch accepted a moment ago may not be in the read model yet; its own event answers. */
  private async batchFromLog(query: GetBatchQuery): Promise<CommandReply<BatchView>> {
    const [event] = await this.store.readStream(this.dataSource.manager, batchStreamId(query.data.batchId));
    const batch = event?.data as BatchSubmittedV1 | undefined;
    if (!batch || batch.subAccountId !== query.data.subAccountId || batch.accountId !== query.data.accountId) return NOT_FOUND;
    return {
      ok: true,
      result: {
        batchId: batch.batchId,
        clientBatchId: batch.clientBatchId,
        subAccountId: batch.subAccountId,
        submittedAt: batch.submittedAt,
        acceptedCount: batch.acceptedCount,
        rejectedCount: batch.rejectedCount,
        states: { queued: batch.acceptedCount, rejected: batch.rejectedCount, sent: 0, delivered: 0, undelivered: 0 },
      },
    };
  }

  @MessagePattern('GetBatch')
  async getBatch(@Payload() query: GetBatchQuery): Promise<CommandReply<BatchView>> {
    const [batch] = await this.dataSource.query(
      `SELECT batch_id, client_batch_id, sub_account_id, submitted_at, accepted_count, rejected_count
         FROM ${this.s}.batches WHERE batch_id = $1 AND sub_account_id = $2 AND account_id = $3`,
      [query.data.batchId, query.data.subAccountId, query.data.accountId],
    );
    if (!batch) return this.batchFromLog(query);
    const counts: { state: MessageStateName; count: number }[] = await this.dataSource.query(
      `SELECT state, count(*)::int AS count FROM ${this.s}.messages WHERE batch_id = $1 GROUP BY state`,
      [query.data.batchId],
    );
    const states: Record<MessageStateName, number> = { queued: 0, rejected: 0, sent: 0, delivered: 0, undelivered: 0 };
    for (const { state, count } of counts) states[state] = count;
    // The batch row can be projected a moment before its last message rows: what is not yet in a
    // later state is queued, and the refused ones are known from the batch itself.
    states.queued = batch.accepted_count - states.sent - states.delivered - states.undelivered;
    states.rejected = batch.rejected_count;
    return {
      ok: true,
      result: {
        batchId: batch.batch_id,
        clientBatchId: batch.client_batch_id,
        subAccountId: batch.sub_account_id,
        submittedAt: new Date(batch.submitted_at).toISOString(),
        acceptedCount: batch.accepted_count,
        rejectedCount: batch.rejected_count,
        states,
      },
    };
  }
}

type HistoryEntry = MessageView['history'][number];

function toHistoryEntry(event: StoredEvent, index: number, all: readonly StoredEvent[]): HistoryEntry {
  const at = event.occurredAt;
  const plain = (state: MessageStateName, detail: string): HistoryEntry => ({ event: event.type, state, detail, timestamp: at, errorCode: null, errorMessage: null });
  switch (event.type) {
    case 'MessageQueued':
      return plain('queued', QUEUED_DESCRIPTION);
    case 'MessageRejected':
      return plain('rejected', (event.data as MessageRejectedV1).description);
    case 'MessageSent':
      return {
        ...plain('sent', 'SMS is handed to the carrier'),
        carrierMessageIds: (event.data as MessageSentV1).carrierMessageIds,
        ...((event.data as MessageSentV1).carrierId === undefined ? {} : { carrierId: (event.data as MessageSentV1).carrierId }),
      };
    case 'MessageDelivered':
      return plain('delivered', 'SMS is delivered to the handset');
    case 'MessageUndelivered': {
      const d = event.data as MessageUndeliveredV1;
      return { event: event.type, state: 'undelivered', detail: d.detail, timestamp: at, errorCode: d.errorCode, errorMessage: d.errorMessage };
    }
    case 'MessageRouted': {
      const d = event.data as MessageRoutedV1;
      const route = d.routeId === null ? 'the catch-all route' : `route ${d.routeId}`;
      const why = d.outcome === 'handed-off' ? '' : `: ${d.outcome}${d.detail ? ` (${d.detail})` : ''}`;
      return { ...plain(stateBefore(all.slice(0, index)), `routed to carrier ${d.carrierId} by ${route}, attempt ${d.attempt}${why}`), carrierId: d.carrierId };
    }
    case 'ReceiptRecorded': {
      const d = event.data as ReceiptRecordedV1;
      const before = stateBefore(all.slice(0, index));
      return { ...plain(before, `receipt ${d.receipt.stat} (${d.note})`) };
    }
    default:
      return plain(stateBefore(all.slice(0, index)), event.type);
  }
}

function stateBefore(events: readonly StoredEvent[]): MessageStateName {
  const states: Record<string, MessageStateName> = {
    MessageQueued: 'queued',
    MessageRejected: 'rejected',
    MessageSent: 'sent',
    MessageDelivered: 'delivered',
    MessageUndelivered: 'undelivered',
  };
  for (let i = events.length - 1; i >= 0; i--) {
    const state = states[events[i]?.type ?? ''];
    if (state) return state;
  }
  return 'queued';
}

