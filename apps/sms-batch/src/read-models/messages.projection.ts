import {
  QUEUED_DESCRIPTION,
  type MessageDeliveredV1,
  type MessageQueuedV1,
  type MessageRejectedV1,
  type MessageSentV1,
  type MessageUndeliveredV1,
} from '@seed/sms-batch-contracts';
import { quoteSchema, type Projection, type SqlExecutor, type StoredEvent } from '@seed/platform-event-store';

interface NewMessageRow {
  umid: string;
  batch_id: string;
  message_index: number;
  client_message_id: string | null;
  account_id: string;
  sub_account_id: string;
  destination: string;
  source: string | null;
  encoding: string;
  sms_count: number;
  state: string;
  detail: string;
  scheduled: string | null;
  expiry: string | null;
  dlr_callback_url: string | null;
  stream_position: number;
  updated_at: string;
}

interface StateChange {
  umid: string;
  state: string;
  detail: string;
  error_code: string | null;
  error_message: string | null;
  stream_position: number;
  updated_at: string;
}

/**
 * One row per message with its current state. Rows only move forward: an event at or below the
 * stored stream position is a redelivery and changes nothing. Postgres refuses to touch one row
 * twice in a statement, so only the latest change per message in a batch of events is written.
 */
export class MessagesProjection implements Projection {
  readonly name = 'read-model:messages';
  readonly tables = ['messages'];
  readonly types = ['MessageQueued', 'MessageRejected', 'MessageSent', 'MessageDelivered', 'MessageUndelivered'];
  private readonly s: string;

  constructor(schema: string) {
    this.s = quoteSchema(schema);
  }

  async handle(events: readonly StoredEvent[], db: SqlExecutor): Promise<void> {
    const created = new Map<string, NewMessageRow>();
    const changed = new Map<string, StateChange>();
    for (const event of events) {
      const row = newRow(event);
      if (row) created.set(row.umid, row);
      const change = stateChange(event);
      const seen = change && changed.get(change.umid);
      if (change && (!seen || seen.stream_position < change.stream_position)) changed.set(change.umid, change);
    }
    if (created.size > 0) {
      await db.query(
        `INSERT INTO ${this.s}.messages
           (umid, batch_id, message_index, client_message_id, account_id, sub_account_id, destination, source, encoding,
            sms_count, state, detail, scheduled, expiry, dlr_callback_url, stream_position, updated_at)
         SELECT * FROM jsonb_to_recordset($1::jsonb) AS r(umid uuid, batch_id uuid, message_index int, client_message_id text,
                account_id text, sub_account_id text, destination text, source text, encoding text, sms_count int,
                state text, detail text, scheduled timestamptz, expiry timestamptz, dlr_callback_url text,
                stream_position int, updated_at timestamptz)
         ON CONFLICT (umid) DO NOTHING`,
        [JSON.stringify([...created.values()])],
      );
    }
    if (changed.size > 0) {
      await db.query(
        `UPDATE ${this.s}.messages m
            SET state = r.state, detail = r.detail, error_code = r.error_code, error_message = r.error_message,
                stream_position = r.stream_position, updated_at = r.updated_at
           FROM jsonb_to_recordset($1::jsonb) AS r(umid uuid, state text, detail text, error_code text,
                error_message text, stream_position int, updated_at timestamptz)
          WHERE m.umid = r.umid AND m.stream_position < r.stream_position`,
        [JSON.stringify([...changed.values()])],
      );
    }
  }
}

function newRow(event: StoredEvent): NewMessageRow | null {
  if (event.type !== 'MessageQueued' && event.type !== 'MessageRejected') return null;
  const d = event.data as MessageQueuedV1 | MessageRejectedV1;
  const queued = event.type === 'MessageQueued' ? (d as MessageQueuedV1) : null;
  return {
    umid: d.umid,
    batch_id: d.batchId,
    message_index: d.index,
    client_message_id: d.clientMessageId,
    account_id: d.accountId,
    sub_account_id: d.subAccountId,
    destination: d.destination,
    source: d.source,
    encoding: d.encoding,
    sms_count: d.smsCount,
    state: queued ? 'queued' : 'rejected',
    detail: queued ? QUEUED_DESCRIPTION : (d as MessageRejectedV1).description,
    scheduled: queued?.scheduled ?? null,
    expiry: queued?.expiry ?? null,
    dlr_callback_url: d.dlrCallbackUrl,
    stream_position: event.streamPosition,
    updated_at: event.occurredAt,
  };
}

function stateChange(event: StoredEvent): StateChange | null {
  const base = { stream_position: event.streamPosition, updated_at: event.occurredAt, error_code: null, error_message: null };
  switch (event.type) {
    case 'MessageSent': {
      const d = event.data as MessageSentV1;
      return { ...base, umid: d.umid, state: 'sent', detail: 'SMS is handed to the carrier' };
    }
    case 'MessageDelivered': {
      const d = event.data as MessageDeliveredV1;
      return { ...base, umid: d.umid, state: 'delivered', detail: 'SMS is delivered to the handset' };
    }
    case 'MessageUndelivered': {
      const d = event.data as MessageUndeliveredV1;
      return { ...base, umid: d.umid, state: 'undelivered', detail: d.detail, error_code: d.errorCode, error_message: d.errorMessage };
    }
    default:
      return null;
  }
}
