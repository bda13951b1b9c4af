import type { Migration } from '@seed/platform-event-store';

export const inboundMigrations: Migration[] = [
  {
    id: '014-inbound',
    statements: (s) => [
      // Streams whose parts wait for siblings, so that the expiry sweep finds them without
      // scanning the log. Written in the transaction that opens or completes the message.
      `CREATE TABLE IF NOT EXISTS ${s}.inbound_open_groups (
         stream_id text PRIMARY KEY,
         opened_at timestamptz NOT NULL
       )`,
      // The read model behind GET /sms/v1/{subAccountId}/inbound (InboundMessagesProjection).
      `CREATE TABLE IF NOT EXISTS ${s}.inbound_messages (
         umid uuid PRIMARY KEY,
         sub_account_id text NOT NULL,
         source text NOT NULL,
         destination text NOT NULL,
         body text NOT NULL,
         encoding text NOT NULL,
         sms_count integer NOT NULL,
         incomplete boolean NOT NULL,
         received_at timestamptz NOT NULL,
         global_position bigint NOT NULL
       )`,
      `CREATE INDEX IF NOT EXISTS inbound_messages_by_sub_account ON ${s}.inbound_messages (sub_account_id, global_position DESC)`,
    ],
  },
  {
    id: '015-help-replies',
    statements: (s) => [
      // The HELP answers of the last hour per number and handset, to cap them (INBOUND_HELP_REPLIES_PER_HOUR):
      // a HELP is cheap to send and each answer is an SMS the platform pays for.
      `CREATE TABLE IF NOT EXISTS ${s}.help_replies (
         number text NOT NULL,
         recipient text NOT NULL,
         sent_at timestamptz NOT NULL
       )`,
      `CREATE INDEX IF NOT EXISTS help_replies_by_pair ON ${s}.help_replies (number, recipient, sent_at)`,
    ],
  },
];
