import type { Migration } from './migration-runner';
import { schemaLocksMigration } from './schema-locks';

/**
 * Tables of the shared event store, created in each service's own schema.
 * `transaction_id` lets subscribers read in commit-safe order: an event becomes visible to them
 * only when every transaction that could still insert before it has finished (see event-subscription.ts).
 */
export const eventStoreMigrations = (s: string): string[] => [
  `CREATE TABLE IF NOT EXISTS ${s}.events (
     global_position bigserial PRIMARY KEY,
     transaction_id xid8 NOT NULL DEFAULT pg_current_xact_id(),
     event_id uuid NOT NULL UNIQUE,
     stream_id text NOT NULL,
     stream_position integer NOT NULL,
     type text NOT NULL,
     schema_version integer NOT NULL,
     data jsonb NOT NULL,
     metadata jsonb NOT NULL,
     occurred_at timestamptz NOT NULL,
     CONSTRAINT events_stream_position_unique UNIQUE (stream_id, stream_position)
   )`,
  `CREATE INDEX IF NOT EXISTS events_transaction_order ON ${s}.events (transaction_id, global_position)`,
  `CREATE TABLE IF NOT EXISTS ${s}.subscription_checkpoints (
     subscription text PRIMARY KEY,
     transaction_id xid8 NOT NULL DEFAULT '0',
     global_position bigint NOT NULL DEFAULT 0,
     updated_at timestamptz NOT NULL DEFAULT now()
   )`,
  `CREATE TABLE IF NOT EXISTS ${s}.processed_messages (
     consumer text NOT NULL,
     message_id text NOT NULL,
     result jsonb,
     processed_at timestamptz NOT NULL DEFAULT now(),
     PRIMARY KEY (consumer, message_id)
   )`,
];

/**
 * The event store's migrations, first in every service's list. The second keeps ANALYZE short:
 * the bodies (`data`, `metadata`) are never filtered on, and sampling their jsonb took most of an
 * ANALYZE of a big log (0.9 s of a 1.3 M-event table, 0.44 s without). An ANALYZE holds back the
 * cleanup horizon while it runs, and the work queues' index fronts grow with every second of it.
 */
export const eventStoreSchema: Migration[] = [
  { id: '000-event-store', statements: eventStoreMigrations },
  {
    id: '000-event-store-statistics',
    statements: (s) => [`ALTER TABLE ${s}.events ALTER COLUMN data SET STATISTICS 0, ALTER COLUMN metadata SET STATISTICS 0`],
  },
  /**
   * Bodies kept as the JSON text they were written as (`json`), not `jsonb`: nothing queries
   * inside them, and every event is written once and read by every follower, so jsonb's parse into
   * its binary form on insert and its printing back to text on every read were pure cost (on the
   * delivery path, appends and follower reads were the two largest statements). An existing log is
   * rewritten once by this migration (the table is locked meanwhile; see
   * docs/adr/0035-event-bodies-as-json.md).
   */
  {
    id: '000-event-store-textual-json',
    statements: (s) => [`ALTER TABLE ${s}.events ALTER COLUMN data TYPE json USING data::json, ALTER COLUMN metadata TYPE json USING metadata::json`],
  },
  schemaLocksMigration,
];
