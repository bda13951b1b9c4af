import type { Migration } from '@seed/platform-event-store';

/**
 * Written by the command handlers in the transaction of their append (not projections: a
 * generation must see the one before it at once, and a rate limit must count exactly):
 * - destination_sessions: the latest verification of each (sub-account, number), to find the one
 *   a new generation request resends;
 * - sms_sends: every SMS decided, for the abuse limits; rows older than the longest window are pruned.
 */
export const verificationMigrations: Migration[] = [
  {
    id: '001-verification-sessions-and-sends',
    statements: (s) => [
      `CREATE TABLE ${s}.destination_sessions (
         sub_account_id text NOT NULL,
         msisdn text NOT NULL,
         uid uuid NOT NULL,
         PRIMARY KEY (sub_account_id, msisdn)
       )`,
      `CREATE TABLE ${s}.sms_sends (
         id bigserial PRIMARY KEY,
         sub_account_id text NOT NULL,
         msisdn text NOT NULL,
         sent_at timestamptz NOT NULL
       )`,
      `CREATE INDEX sms_sends_by_destination ON ${s}.sms_sends (msisdn, sent_at)`,
      `CREATE INDEX sms_sends_by_sub_account ON ${s}.sms_sends (sub_account_id, sent_at)`,
    ],
  },
  {
    // A number's SMS are counted per account (see AbuseLimits). Rows from before have no account
    // and count for nobody; they leave the window within the hour.
    id: '002-sms-sends-per-account',
    statements: (s) => [
      `ALTER TABLE ${s}.sms_sends ADD COLUMN account_id text NOT NULL DEFAULT ''`,
      `DROP INDEX ${s}.sms_sends_by_destination`,
      `CREATE INDEX sms_sends_by_account_destination ON ${s}.sms_sends (account_id, msisdn, sent_at)`,
    ],
  },
];
