import type { MessageQueuedV1 } from '@seed/sms-batch-contracts';
import { quoteSchema, type Projection, type SqlExecutor, type StoredEvent } from '@seed/platform-event-store';

/**
 * The sender's to-do list, kept from the log: a queued message is due at its `scheduled` time
 * (or at once) until it is sent or final. Replaying it gives back exactly the unfinished messages.
 */
export class OutboundQueueProjection implements Projection {
  readonly name = 'outbound-queue';
  // Not emptied by a replay: rows hold the leases of messages on the wire, and a replay that
  // dropped them would let the sender claim those messages again. Replaying re-adds unfinished
  // messages (keeping existing rows) and removes finished ones, which is all a rebuild needs.
  readonly tables = [];
  readonly types = ['MessageQueued', 'MessageSent', 'MessageUndelivered'];
  private readonly s: string;

  constructor(schema: string) {
    this.s = quoteSchema(schema);
  }

  async handle(events: readonly StoredEvent[], db: SqlExecutor): Promise<void> {
    const queued = new Map<string, MessageQueuedV1>();
    const traceOf = new Map<string, string | null>();
    const done = new Set<string>();
    for (const event of events) {
      const umid = (event.data as { umid?: string }).umid;
      if (!umid) continue;
      if (event.type === 'MessageQueued') {
        queued.set(umid, event.data as MessageQueuedV1);
        traceOf.set(umid, event.traceparent);
      }
      else if (event.type === 'MessageSent' || event.type === 'MessageUndelivered') done.add(umid);
    }
    const rows = [...queued.values()]
      .filter((m) => !done.has(m.umid))
      .map((m) => ({
        umid: m.umid,
        account_id: m.accountId,
        sub_account_id: m.subAccountId,
        destination: m.destination,
        source: m.source,
        // A sealed text stays sealed in the queue too; the sender opens it just before building PDUs.
        text: m.sealedText ?? m.text,
        encoding: m.encoding,
        expiry: m.expiry,
        next_attempt_at: m.scheduled ?? m.queuedAt,
        traceparent: traceOf.get(m.umid) ?? null,
      }));
    if (rows.length > 0) {
      await db.query(
        `INSERT INTO ${this.s}.outbound_queue (umid, account_id, sub_account_id, destination, source, text, encoding, expiry, next_attempt_at, traceparent)
         SELECT * FROM jsonb_to_recordset($1::jsonb) AS r(umid uuid, account_id text, sub_account_id text, destination text, source text, text text,
                encoding text, expiry timestamptz, next_attempt_at timestamptz, traceparent text)
         ON CONFLICT (umid) DO NOTHING`,
        [JSON.stringify(rows)],
      );
    }
    if (done.size > 0) await db.query(`DELETE FROM ${this.s}.outbound_queue WHERE umid = ANY($1::uuid[])`, [[...done]]);
  }
}
