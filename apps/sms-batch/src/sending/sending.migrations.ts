import type { Migration } from '@seed/platform-event-store';

/**
 * The sending side of sms-batch. `outbound_queue` is a projection of the log (a message is in it
 * from MessageQueued until MessageSent or MessageUndelivered) with a lease per row, so that a
 * crashed sender's claims come back after SEND_LEASE_MS. `carrier_ids` maps carrier message ids
 * (under every form a receipt may use) to umids; `parked_receipts` holds receipts that arrived
 * before their submission was recorded.
 */
export const sendingMigrations: Migration[] = [
  {
    id: '003-sending',
    statements: (s) => [
      `CREATE TABLE IF NOT EXISTS ${s}.outbound_queue (
         umid uuid PRIMARY KEY,
         destination text NOT NULL,
         source text,
         text text NOT NULL,
         encoding text NOT NULL,
         expiry timestamptz,
         next_attempt_at timestamptz NOT NULL,
         attempts integer NOT NULL DEFAULT 0,
         lease_until timestamptz
       )`,
      `CREATE INDEX IF NOT EXISTS outbound_queue_due ON ${s}.outbound_queue (next_attempt_at)`,
      `CREATE TABLE IF NOT EXISTS ${s}.carrier_ids (
         carrier_key text NOT NULL,
         umid uuid NOT NULL,
         PRIMARY KEY (carrier_key, umid)
       )`,
      `CREATE TABLE IF NOT EXISTS ${s}.parked_receipts (
         id bigserial PRIMARY KEY,
         carrier_key text NOT NULL,
         receipt jsonb NOT NULL,
         parked_at timestamptz NOT NULL DEFAULT now()
       )`,
      `CREATE INDEX IF NOT EXISTS parked_receipts_by_key ON ${s}.parked_receipts (carrier_key)`,
    ],
  },
  {
    id: '005-carrier-id-order',
    statements: (s) => [`ALTER TABLE ${s}.carrier_ids ADD COLUMN IF NOT EXISTS seq bigserial`],
  },
  {
    // Messages past their expiry are looked up by it while no carrier is bound: read from the
    // front of this index instead of scanning every due row.
    id: '006-outbound-expiry',
    statements: (s) => [`CREATE INDEX IF NOT EXISTS outbound_queue_expiry ON ${s}.outbound_queue (expiry) WHERE expiry IS NOT NULL`],
  },
  {
    // Fencing tokens: every claim takes a new token from the sequence, and a result or a hand-back
    // is written only under the token that is still the row's. A sender whose lease ran out (a
    // replica paused, or cut off from the database) can then never overwrite the new holder's work.
    id: '008-outbound-lease-token',
    statements: (s) => [
      `CREATE SEQUENCE IF NOT EXISTS ${s}.outbound_lease_tokens`,
      `ALTER TABLE ${s}.outbound_queue ADD COLUMN IF NOT EXISTS lease_token bigint`,
    ],
  },
  {
    // The trace of the request that queued the message, so that its submission joins that trace.
    id: '009-outbound-traceparent',
    statements: (s) => [`ALTER TABLE ${s}.outbound_queue ADD COLUMN IF NOT EXISTS traceparent text`],
  },
  {
    // Several carriers. A queue row may be pinned to the carrier its route chose (by a replica that
    // holds no session to it) and remembers the carriers it failed over from. Bind slots are the
    // carrier-wide session budget: a replica opens a session only under a slot it leases, renews
    // the lease every second, and closes the session when it cannot; `bound` and `throttled_until`
    // tell every replica which carriers can take traffic. Replicas announce themselves so that each
    // can compute its fair share of every carrier's slots.
    id: '010-carriers',
    statements: (s) => [
      `ALTER TABLE ${s}.outbound_queue ADD COLUMN IF NOT EXISTS carrier_id text`,
      `ALTER TABLE ${s}.outbound_queue ADD COLUMN IF NOT EXISTS tried text[] NOT NULL DEFAULT '{}'`,
      // Routes may match by account and sub-account.
      `ALTER TABLE ${s}.outbound_queue ADD COLUMN IF NOT EXISTS account_id text`,
      `ALTER TABLE ${s}.outbound_queue ADD COLUMN IF NOT EXISTS sub_account_id text`,
      `CREATE INDEX IF NOT EXISTS outbound_queue_pinned ON ${s}.outbound_queue (carrier_id) WHERE carrier_id IS NOT NULL`,
      `CREATE SEQUENCE IF NOT EXISTS ${s}.carrier_bind_tokens`,
      `CREATE TABLE IF NOT EXISTS ${s}.carrier_bind_slots (
         carrier_id text NOT NULL,
         slot integer NOT NULL,
         holder text,
         token bigint,
         lease_until timestamptz,
         bound boolean NOT NULL DEFAULT false,
         throttled_until timestamptz,
         PRIMARY KEY (carrier_id, slot)
       )`,
      `CREATE TABLE IF NOT EXISTS ${s}.sender_replicas (
         replica_id text PRIMARY KEY,
         seen_at timestamptz NOT NULL
       )`,
    ],
  },
  {
    // A message a carrier accepted some parts of is locked to that carrier: its other parts are
    // retried there, and it is never unpinned for another carrier (which would send the accepted
    // parts a second time).
    id: '011-carrier-lock',
    statements: (s) => [`ALTER TABLE ${s}.outbound_queue ADD COLUMN IF NOT EXISTS carrier_locked boolean NOT NULL DEFAULT false`],
  },
];
