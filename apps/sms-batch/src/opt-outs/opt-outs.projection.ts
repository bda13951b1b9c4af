import type { Migration } from '@seed/platform-event-store';
import { quoteSchema, type Projection, type SqlExecutor, type StoredEvent } from '@seed/platform-event-store';
import type { RecipientOptedInV1, RecipientOptedOutV1 } from '@seed/sms-batch-contracts';

export const optOutMigrations: Migration[] = [
  {
    id: '013-opt-outs',
    statements: (s) => [
      // One row per recipient ever opted out of a sub-account; an opt-in keeps the row (opted_out
      // false) so that the senders' in-memory set learns of it by `changed_at_position`.
      `CREATE TABLE IF NOT EXISTS ${s}.opt_outs (
         sub_account_id text NOT NULL,
         msisdn text NOT NULL,
         opted_out boolean NOT NULL,
         source text NOT NULL,
         keyword text,
         changed_at timestamptz NOT NULL,
         changed_at_position bigint NOT NULL,
         PRIMARY KEY (sub_account_id, msisdn)
       )`,
      `CREATE INDEX IF NOT EXISTS opt_outs_by_change ON ${s}.opt_outs (changed_at_position)`,
    ],
  },
];

/** The opt-outs as of the log: what the admin API lists and what every sender keeps in memory. */
export class OptOutsProjection implements Projection {
  readonly name = 'read-model:opt-outs';
  readonly tables = ['opt_outs'];
  readonly types = ['RecipientOptedOut', 'RecipientOptedIn'];
  private readonly s: string;

  constructor(schema: string) {
    this.s = quoteSchema(schema);
  }

  async handle(events: readonly StoredEvent[], db: SqlExecutor): Promise<void> {
    for (const event of events) {
      if (event.type !== 'RecipientOptedOut' && event.type !== 'RecipientOptedIn') continue;
      const out = event.type === 'RecipientOptedOut';
      const data = event.data as RecipientOptedOutV1 & RecipientOptedInV1;
      await db.query(
        `INSERT INTO ${this.s}.opt_outs (sub_account_id, msisdn, opted_out, source, keyword, changed_at, changed_at_position)
         VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (sub_account_id, msisdn) DO UPDATE SET opted_out = excluded.opted_out, source = excluded.source,
           keyword = excluded.keyword, changed_at = excluded.changed_at, changed_at_position = excluded.changed_at_position
         WHERE ${this.s}.opt_outs.changed_at_position < excluded.changed_at_position`,
        [data.subAccountId, data.msisdn, out, data.source, data.keyword, out ? data.optedOutAt : data.optedInAt, event.globalPosition],
      );
    }
  }
}
