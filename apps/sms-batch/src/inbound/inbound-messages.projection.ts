import { quoteSchema, type Projection, type SqlExecutor, type StoredEvent } from '@seed/platform-event-store';
import type { InboundMessageReceivedV1 } from '@seed/sms-batch-contracts';

/** The inbound messages of the platform's numbers, per sub-account: GET /sms/v1/{subAccountId}/inbound. */
export class InboundMessagesProjection implements Projection {
  readonly name = 'read-model:inbound-messages';
  readonly tables = ['inbound_messages'];
  readonly types = ['InboundMessageReceived'];
  private readonly s: string;

  constructor(schema: string) {
    this.s = quoteSchema(schema);
  }

  async handle(events: readonly StoredEvent[], db: SqlExecutor): Promise<void> {
    const rows = events
      .filter((e) => e.type === 'InboundMessageReceived' && (e.data as InboundMessageReceivedV1).subAccountId !== null)
      .map((e) => {
        const d = e.data as InboundMessageReceivedV1;
        return { umid: d.umid, sub_account_id: d.subAccountId, source: d.source, destination: d.destination, body: d.body, encoding: d.encoding, sms_count: d.smsCount, incomplete: d.incomplete, received_at: d.receivedAt, global_position: e.globalPosition };
      });
    if (rows.length === 0) return;
    await db.query(
      `INSERT INTO ${this.s}.inbound_messages (umid, sub_account_id, source, destination, body, encoding, sms_count, incomplete, received_at, global_position)
       SELECT * FROM jsonb_to_recordset($1::jsonb) AS r(umid uuid, sub_account_id text, source text, destination text, body text, encoding text,
              sms_count int, incomplete boolean, received_at timestamptz, global_position bigint)
       ON CONFLICT (umid) DO NOTHING`,
      [JSON.stringify(rows)],
    );
  }
}
