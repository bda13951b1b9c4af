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
];
