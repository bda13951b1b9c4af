import type { BatchSubmittedV1 } from '@seed/sms-batch-contracts';
import { quoteSchema, type Projection, type SqlExecutor, type StoredEvent } from '@seed/platform-event-store';

/** One row per batch: its counts and client reference. */
export class BatchesProjection implements Projection {
  readonly name = 'read-model:batches';
  readonly tables = ['batches'];
  readonly types = ['BatchSubmitted'];
  private readonly s: string;

  constructor(schema: string) {
    this.s = quoteSchema(schema);
  }

  async handle(events: readonly StoredEvent[], db: SqlExecutor): Promise<void> {
    const rows = events
      .filter((e) => e.type === 'BatchSubmitted')
      .map((e) => {
        const d = e.data as BatchSubmittedV1;
        return {
          batch_id: d.batchId,
          client_batch_id: d.clientBatchId,
          account_id: d.accountId,
          sub_account_id: d.subAccountId,
          accepted_count: d.acceptedCount,
          rejected_count: d.rejectedCount,
          submitted_at: d.submittedAt,
        };
      });
    if (rows.length === 0) return;
    await db.query(
      `INSERT INTO ${this.s}.batches (batch_id, client_batch_id, account_id, sub_account_id, accepted_count, rejected_count, submitted_at)
       SELECT * FROM jsonb_to_recordset($1::jsonb) AS r(batch_id uuid, client_batch_id text, account_id text,
              sub_account_id text, accepted_count int, rejected_count int, submitted_at timestamptz)
       ON CONFLICT (batch_id) DO NOTHING`,
      [JSON.stringify(rows)],
    );
  }
}
