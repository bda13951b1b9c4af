import { QUEUED_DESCRIPTION, type MessageQueuedV1, type MessageRejectedV1 } from '@seed/sms-batch-contracts';
import { quoteSchema, type Projection, type SqlExecutor, type StoredEvent } from '@seed/platform-event-store';

interface MessageRow {
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

/**
 * One row per message with its current state. Rows only move forward: an event at or below the
 * stored stream position is a redelivery and changes nothing.
 */
export class MessagesProjection implements Projection {
  readonly name = 'read-model:messages';
  readonly tables = ['messages'];
  private readonly s: string;

  constructor(schema: string) {
    this.s = quoteSchema(schema);
  }

  async handle(events: readonly StoredEvent[], db: SqlExecutor): Promise<void> {
    // One row per umid and statement: Postgres refuses to upsert the same row twice in one
    // INSERT, so only the latest event of each message in this batch of events is written.
    const latest = new Map<string, MessageRow>();
    for (const event of events) {
      const row = toRow(event);
      const seen = row && latest.get(row.umid);
      if (row && (!seen || seen.stream_position < row.stream_position)) latest.set(row.umid, row);
    }
    const rows = [...latest.values()];
    if (rows.length === 0) return;
    await db.query(
      `INSERT INTO ${this.s}.messages AS m
         (umid, batch_id, message_index, client_message_id, account_id, sub_account_id, destination, source, encoding,
          sms_count, state, detail, scheduled, expiry, dlr_callback_url, stream_position, updated_at)
       SELECT * FROM jsonb_to_recordset($1::jsonb) AS r(umid uuid, batch_id uuid, message_index int, client_message_id text,
              account_id text, sub_account_id text, destination text, source text, encoding text, sms_count int,
              state text, detail text, scheduled timestamptz, expiry timestamptz, dlr_callback_url text,
              stream_position int, updated_at timestamptz)
       ON CONFLICT (umid) DO UPDATE SET state = EXCLUDED.state, detail = EXCLUDED.detail,
              stream_position = EXCLUDED.stream_position, updated_at = EXCLUDED.updated_at
        WHERE m.stream_position < EXCLUDED.stream_position`,
      [JSON.stringify(rows)],
    );
  }
}

function toRow(event: StoredEvent): MessageRow | null {
  switch (event.type) {
    case 'MessageQueued': {
      const d = event.data as MessageQueuedV1;
      return {
        ...identity(d),
        destination: d.destination,
        source: d.source,
        encoding: d.encoding,
        sms_count: d.smsCount,
        state: 'queued',
        detail: QUEUED_DESCRIPTION,
        scheduled: d.scheduled,
        expiry: d.expiry,
        dlr_callback_url: d.dlrCallbackUrl,
        stream_position: event.streamPosition,
        updated_at: event.occurredAt,
      };
    }
    case 'MessageRejected': {
      const d = event.data as MessageRejectedV1;
      return {
        ...identity(d),
        destination: d.destination,
        source: d.source,
        encoding: d.encoding,
        sms_count: d.smsCount,
        state: 'rejected',
        detail: d.description,
        scheduled: null,
        expiry: null,
        dlr_callback_url: d.dlrCallbackUrl,
        stream_position: event.streamPosition,
        updated_at: event.occurredAt,
      };
    }
    default:
      return null;
  }
}

function identity(d: MessageQueuedV1 | MessageRejectedV1) {
  return {
    umid: d.umid,
    batch_id: d.batchId,
    message_index: d.index,
    client_message_id: d.clientMessageId,
    account_id: d.accountId,
    sub_account_id: d.subAccountId,
  };
}
