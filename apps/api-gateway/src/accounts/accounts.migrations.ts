import type { Migration } from '@seed/platform-event-store';

/**
 * Accounts, sub-accounts and API keys: the gateway's identity store. Keys are kept only as
 * SHA-256 hashes of 256-bit random secrets (a slow password hash buys nothing for secrets that
 * cannot be guessed, and would cost every request).
 */
export const accountsMigrations: Migration[] = [
  {
    id: '001-accounts',
    statements: (s) => [
      `CREATE TABLE IF NOT EXISTS ${s}.accounts (
         account_id text PRIMARY KEY,
         created_at timestamptz NOT NULL DEFAULT now()
       )`,
      `CREATE TABLE IF NOT EXISTS ${s}.sub_accounts (
         sub_account_id text PRIMARY KEY,
         account_id text NOT NULL REFERENCES ${s}.accounts (account_id),
         created_at timestamptz NOT NULL DEFAULT now()
       )`,
      `CREATE INDEX IF NOT EXISTS sub_accounts_by_account ON ${s}.sub_accounts (account_id)`,
      `CREATE TABLE IF NOT EXISTS ${s}.api_keys (
         api_key_id text PRIMARY KEY,
         account_id text NOT NULL REFERENCES ${s}.accounts (account_id),
         key_hash bytea NOT NULL UNIQUE,
         created_at timestamptz NOT NULL DEFAULT now(),
         revoked_at timestamptz
       )`,
    ],
  },
  {
    // Per-sub-account request rate limits (product-decisions "Rate limits"): the account's own
    // limit (null: the gateway's RATE_LIMIT_PER_SECOND) and the requests the replicas have leased.
    id: '002-rate-limits',
    statements: (s) => [
      `ALTER TABLE ${s}.accounts ADD COLUMN IF NOT EXISTS requests_per_second integer`,
      `CREATE UNLOGGED TABLE IF NOT EXISTS ${s}.request_grants (
         sub_account_id text NOT NULL,
         second bigint NOT NULL,
         granted integer NOT NULL,
         last_lease integer NOT NULL,
         PRIMARY KEY (sub_account_id, second)
       )`,
      `CREATE INDEX IF NOT EXISTS request_grants_by_second ON ${s}.request_grants (second)`,
    ],
  },
];
