import type { Migration } from '@seed/platform-event-store';
import { ConcurrencyError, quoteSchema, type SqlExecutor } from '@seed/platform-event-store';

/** How long an Idempotency-Key answers with its first batch (Stripe's window). */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

/** The Idempotency-Keys of the current API generation, per account, with the batch each answered. */
export const idempotencyKeyMigrations: Migration[] = [
  {
    id: '012-idempotency-keys',
    statements: (s) => [
      `CREATE TABLE IF NOT EXISTS ${s}.idempotency_keys (
         account_id text NOT NULL,
         idempotency_key text NOT NULL,
         request_hash text NOT NULL,
         batch_id uuid NOT NULL,
         created_at timestamptz NOT NULL,
         PRIMARY KEY (account_id, idempotency_key)
       )`,
      `CREATE INDEX IF NOT EXISTS idempotency_keys_created_at ON ${s}.idempotency_keys (created_at)`,
    ],
  },
];

export interface KnownIdempotencyKey {
  requestHash: string;
  batchId: string;
}

/** The request of a known key was another one: answered 422, nothing written. */
export class IdempotencyKeyReused extends Error {
  constructor(key: string) {
    super(`the Idempotency-Key ${JSON.stringify(key)} was used within 24 h for another request; use a new key for a new request`);
  }
}

/**
 * Decides what a request with a key gets: null (a new request: decide it), its first batch, or a
 * refusal when the key answered another request. A key older than the window counts as new.
 */
export function matchIdempotencyKey(
  known: (KnownIdempotencyKey & { createdAt: Date }) | undefined,
  requested: { key: string; requestHash: string },
  now: Date,
): { batchId: string } | null {
  if (!known || now.getTime() - known.createdAt.getTime() >= IDEMPOTENCY_WINDOW_MS) return null;
  if (known.requestHash !== requested.requestHash) throw new IdempotencyKeyReused(requested.key);
  return { batchId: known.batchId };
}

/**
 * Reserved in the transaction that appends the batch (with its clientBatchId), so a key and its
 * batch are written together or not at all. Expired rows are replaced when their key comes again
 * and purged a few at a time by each reservation.
 */
export class IdempotencyKeys {
  private readonly table: string;

  constructor(schema: string) {
    this.table = `${quoteSchema(schema)}.idempotency_keys`;
  }

  async find(tx: SqlExecutor, accountId: string, key: string): Promise<(KnownIdempotencyKey & { createdAt: Date }) | undefined> {
    const rows: { request_hash: string; batch_id: string; created_at: Date }[] = await tx.query(
      `SELECT request_hash, batch_id, created_at FROM ${this.table} WHERE account_id = $1 AND idempotency_key = $2`,
      [accountId, key],
    );
    const row = rows[0];
    return row && { requestHash: row.request_hash, batchId: row.batch_id, createdAt: new Date(row.created_at) };
  }

  /**
   * Takes the key for this batch. A concurrent request with the same key waits here on the key's
   * row until the first commits, then finds it taken (ConcurrencyError: decide again, and answer
   * with the first's batch).
   */
  async reserve(tx: SqlExecutor, accountId: string, key: string, requestHash: string, batchId: string, now: Date): Promise<void> {
    const expired = new Date(now.getTime() - IDEMPOTENCY_WINDOW_MS);
    const rows: unknown[] = await tx.query(
      `INSERT INTO ${this.table} AS k (account_id, idempotency_key, request_hash, batch_id, created_at)
       VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (account_id, idempotency_key) DO UPDATE
         SET request_hash = EXCLUDED.request_hash, batch_id = EXCLUDED.batch_id, created_at = EXCLUDED.created_at
         WHERE k.created_at <= $6
       RETURNING batch_id`,
      [accountId, key, requestHash, batchId, now, expired],
    );
    if (rows.length === 0) throw new ConcurrencyError(`the Idempotency-Key ${JSON.stringify(key)} was reserved concurrently`);
    await tx.query(
      `DELETE FROM ${this.table} WHERE ctid = ANY (ARRAY(SELECT ctid FROM ${this.table} WHERE created_at <= $1 ORDER BY created_at LIMIT 100 FOR UPDATE SKIP LOCKED))`,
      [expired],
    );
  }
}
