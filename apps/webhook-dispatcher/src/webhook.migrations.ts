import type { Migration } from '@seed/platform-event-store';
import { endpointStateFunctions } from './sending/endpoint-state.sql';

/**
 * State of the dispatcher besides its event log, written in the same transaction as the events
 * it follows from: `account_webhooks` (each account's default URL and sealed secrets, the fold of
 * its settings stream) and `deliveries` (each delivery's fold: the admin API's read model and the
 * sender's queue; a claim moves `next_attempt_at` forward by the lease, so a dispatcher that dies
 * hands its deliveries back) and `delivery_endpoints` (per endpoint, what every replica shares:
 * its circuit breaker and the sending slots each replica holds).
 */
export const webhookMigrations: Migration[] = [
  {
    id: '001-webhooks',
    statements: (s) => [
      `CREATE TABLE IF NOT EXISTS ${s}.account_webhooks (
         account_id text PRIMARY KEY,
         dlr_callback_url text,
         sealed_secret text,
         previous_sealed_secret text,
         previous_valid_until timestamptz,
         version integer NOT NULL
       )`,
      `CREATE TABLE IF NOT EXISTS ${s}.deliveries (
         delivery_id uuid PRIMARY KEY,
         account_id text NOT NULL,
         umid text NOT NULL,
         sequence integer NOT NULL,
         url text NOT NULL,
         origin text NOT NULL,
         body text NOT NULL,
         state text NOT NULL,
         attempts integer NOT NULL DEFAULT 0,
         version integer NOT NULL,
         window_start timestamptz NOT NULL,
         next_attempt_at timestamptz NOT NULL,
         -- when the current claim was taken (its lease runs until next_attempt_at); null when unclaimed
         lease_until timestamptz,
         last_status integer,
         last_error text,
         created_at timestamptz NOT NULL,
         finished_at timestamptz
       )`,
      `CREATE INDEX IF NOT EXISTS deliveries_due ON ${s}.deliveries (next_attempt_at) WHERE state = 'pending'`,
      `CREATE INDEX IF NOT EXISTS deliveries_message_order ON ${s}.deliveries (umid, sequence) WHERE state = 'pending'`,
      `CREATE INDEX IF NOT EXISTS deliveries_dead ON ${s}.deliveries (account_id, finished_at) WHERE state = 'dead'`,
    ],
  },
  {
    // Several replaced secrets may sign at once (a second rotation within the first one's overlap).
    id: '002-previous-secrets',
    statements: (s) => [
      `ALTER TABLE ${s}.account_webhooks ADD COLUMN IF NOT EXISTS previous_secrets jsonb NOT NULL DEFAULT '[]'`,
      `UPDATE ${s}.account_webhooks
          SET previous_secrets = jsonb_build_array(jsonb_build_object('sealedSecret', previous_sealed_secret,
                'validUntil', to_char(previous_valid_until AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')))
        WHERE previous_sealed_secret IS NOT NULL AND previous_valid_until IS NOT NULL`,
      `ALTER TABLE ${s}.account_webhooks DROP COLUMN IF EXISTS previous_sealed_secret, DROP COLUMN IF EXISTS previous_valid_until`,
    ],
  },
  {
    // The claim reads each endpoint's due rows from the front of its own range, so a broken
    // endpoint's backlog is never scanned past; it replaces the single due index.
    id: '003-due-by-endpoint',
    statements: (s) => [
      `CREATE INDEX IF NOT EXISTS deliveries_due_by_origin ON ${s}.deliveries (origin, next_attempt_at) WHERE state = 'pending'`,
      `DROP INDEX IF EXISTS ${s}.deliveries_due`,
    ],
  },
  {
    // The queue's dead index entries are what a claim steps over: vacuum it at 5% dead rows, not
    // the default 20% (docs/adr/0013-work-queue-claims-cost-o-batch.md). Bodies are never filtered
    // on: no stats.
    id: '004-queue-upkeep',
    statements: (s) => [
      `ALTER TABLE ${s}.deliveries SET (autovacuum_vacuum_scale_factor = 0.05)`,
      `ALTER TABLE ${s}.deliveries ALTER COLUMN body SET STATISTICS 0`,
    ],
  },
  {
    // The endpoints the claim walks, one row per origin ever delivered to: a claim probes each
    // one's range of the due index instead of skipping through the index for them.
    id: '005-delivery-endpoints',
    statements: (s) => [
      `CREATE TABLE IF NOT EXISTS ${s}.delivery_endpoints (origin text PRIMARY KEY)`,
      `INSERT INTO ${s}.delivery_endpoints (origin) SELECT DISTINCT origin FROM ${s}.deliveries ON CONFLICT DO NOTHING`,
    ],
  },
  {
    // Waiting rows (due at 'infinity') leave the due index. With both indexes on the same predicate,
    // statistics from a quiet moment made the planner serve a message's lookups (by umid) from the
    // due index, reading every pending row per message; now only the message-order index can serve
    // them, and the due index holds only rows that can be claimed.
    id: '006-due-index-without-waiting',
    statements: (s) => [
      `CREATE INDEX IF NOT EXISTS deliveries_claimable ON ${s}.deliveries (origin, next_attempt_at) WHERE state = 'pending' AND next_attempt_at < 'infinity'`,
      `DROP INDEX IF EXISTS ${s}.deliveries_due_by_origin`,
    ],
  },
  {
    // Per-endpoint concurrency and the circuit breaker hold across replicas: both live in the
    // endpoint's row (the breaker as consecutive failures and open-until, counted in versions so a
    // replica never takes an older reading for a newer one; the sending slots as a grant per
    // replica), changed under the row's lock by the claim and by recorded outcomes.
    // Room on the row's page keeps those updates heap-only (the table has only its key's index).
    id: '007-shared-endpoint-state',
    statements: (s) => [
      `ALTER TABLE ${s}.delivery_endpoints
         ADD COLUMN IF NOT EXISTS failures integer NOT NULL DEFAULT 0,
         ADD COLUMN IF NOT EXISTS open_until timestamptz,
         ADD COLUMN IF NOT EXISTS breaker_version bigint NOT NULL DEFAULT 0,
         ADD COLUMN IF NOT EXISTS slot_grants jsonb NOT NULL DEFAULT '{}'`,
      `ALTER TABLE ${s}.delivery_endpoints SET (fillfactor = 50)`,
      ...endpointStateFunctions(s),
    ],
  },
  {
    // The trace of the status change a delivery carries (the event's traceparent): its POSTs join it.
    id: '008-delivery-traceparent',
    statements: (s) => [`ALTER TABLE ${s}.deliveries ADD COLUMN IF NOT EXISTS traceparent text`],
  },
  {
    // Fencing tokens from a sequence, as the outbound SMS queue has (libs/platform/work-queue): each
    // claim draws a new one, and an outcome or a hand-back is written only under the row's token.
    // The claim's time (`lease_until`, as text) was the token before: a fence only while no two
    // claims share a clock reading, and a second kind beside the SMS queue's. `lease_until` still
    // says since when the row is held.
    id: '009-delivery-lease-token',
    statements: (s) => [
      `CREATE SEQUENCE IF NOT EXISTS ${s}.delivery_lease_tokens`,
      `ALTER TABLE ${s}.deliveries ADD COLUMN IF NOT EXISTS lease_token bigint`,
    ],
  },
  {
    // The final-status reconciliation (reconciliation/): each final status change with somewhere to
    // go, as a consumer group of its own read it, until the intake or the sender recorded it as
    // handled (processed_messages). Rows are removed once handled, so the table holds only what is
    // in progress, and what went missing.
    id: '010-final-status-watch',
    statements: (s) => [
      `CREATE TABLE IF NOT EXISTS ${s}.final_status_watch (
         event_id text PRIMARY KEY,
         umid text NOT NULL,
         account_id text NOT NULL,
         state text NOT NULL,
         seen_at timestamptz NOT NULL DEFAULT now()
       )`,
      `CREATE INDEX IF NOT EXISTS final_status_watch_seen ON ${s}.final_status_watch (seen_at)`,
    ],
  },
];
