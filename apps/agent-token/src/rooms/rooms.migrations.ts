import type { Migration } from '@seed/platform-event-store';

export const roomMigrations: Migration[] = [
  {
    id: '001-call-references',
    // Write side, kept in the transactions that create and join rooms: the call_reference of each
    // account's room, taken until `active_until`. A later room may take the reference after that.
    statements: (s) => [
      `CREATE TABLE ${s}.call_references (
         account_id text NOT NULL,
         call_reference text NOT NULL,
         room_id uuid NOT NULL,
         active_until timestamptz NOT NULL,
         PRIMARY KEY (account_id, call_reference)
       )`,
      `CREATE INDEX call_references_room ON ${s}.call_references (room_id)`,
    ],
  },
  {
    id: '002-rooms-read-model',
    statements: (s) => [
      `CREATE TABLE ${s}.rooms (
         room_id uuid PRIMARY KEY,
         account_id text NOT NULL,
         call_reference text NOT NULL,
         phone_number text,
         state text NOT NULL,
         created_at timestamptz NOT NULL,
         expires_at timestamptz NOT NULL,
         joined_at timestamptz,
         guest_sms_umid uuid,
         expired_at timestamptz
       )`,
      `CREATE INDEX rooms_waiting_by_expiry ON ${s}.rooms (expires_at) WHERE state = 'waiting'`,
      `CREATE INDEX rooms_by_account ON ${s}.rooms (account_id, call_reference)`,
    ],
  },
];
