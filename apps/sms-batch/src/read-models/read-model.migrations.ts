import type { Migration } from '@seed/platform-event-store';

/** Read models behind the batch and message reads; rebuilt by `npm run replay -- sms-batch`. */
export const readModelMigrations: Migration[] = [
  {
    id: '001-batches-and-messages',
    statements: (s) => [
      `CREATE TABLE IF NOT EXISTS ${s}.batches (
         batch_id uuid PRIMARY KEY,
         client_batch_id text,
         account_id text NOT NULL,
         sub_account_id text NOT NULL,
         accepted_count integer NOT NULL,
         rejected_count integer NOT NULL,
         submitted_at timestamptz NOT NULL
       )`,
      `CREATE TABLE IF NOT EXISTS ${s}.messages (
         umid uuid PRIMARY KEY,
         batch_id uuid NOT NULL,
         message_index integer NOT NULL,
         client_message_id text,
         account_id text NOT NULL,
         sub_account_id text NOT NULL,
         destination text NOT NULL,
         source text,
         encoding text NOT NULL,
         sms_count integer NOT NULL,
         state text NOT NULL,
         detail text NOT NULL,
         scheduled timestamptz,
         expiry timestamptz,
         dlr_callback_url text,
         stream_position integer NOT NULL,
         updated_at timestamptz NOT NULL
       )`,
      `CREATE INDEX IF NOT EXISTS messages_by_batch ON ${s}.messages (batch_id, message_index)`,
    ],
  },
];

/** Carrier errors of undelivered messages. */
export const messageErrorMigrations: Migration[] = [
  {
    id: '004-message-errors',
    statements: (s) => [
      `ALTER TABLE ${s}.messages ADD COLUMN IF NOT EXISTS error_code text`,
      `ALTER TABLE ${s}.messages ADD COLUMN IF NOT EXISTS error_message text`,
    ],
  },
  {
    // Each message row is updated twice after its insert (sent, then final), on columns no index
    // covers: room in the page lets those be heap-only updates, with no new index entries.
    id: '007-messages-fillfactor',
    statements: (s) => [`ALTER TABLE ${s}.messages SET (fillfactor = 70)`],
  },
];

/** Write-side uniqueness of `clientBatchId` per sub-account, reserved in the deciding transaction. */
export const clientBatchMigrations: Migration[] = [
  {
    id: '002-client-batch-ids',
    statements: (s) => [
      `CREATE TABLE IF NOT EXISTS ${s}.client_batch_ids (
         sub_account_id text NOT NULL,
         client_batch_id text NOT NULL,
         batch_id uuid NOT NULL,
         PRIMARY KEY (sub_account_id, client_batch_id)
       )`,
    ],
  },
];
