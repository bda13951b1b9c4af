import type { Migration } from './migration-runner';
import { quoteSchema, type SqlExecutor } from './sql-executor';

/**
 * Transaction locks only the service's own role can take: a row of `<schema>.locks` locked FOR
 * UPDATE. PostgreSQL's advisory locks are one space for the whole database: any role connected to
 * it could take another service's key (its follower's, its migrations') and hold it in an open
 * transaction, halting that service without an error. A row of a table in the service's schema can
 * be locked only by a role with rights on it (docs/security.md, "PostgreSQL").
 *
 * A lock is held until its transaction ends. Keys are named locks (a follower, a projection); for
 * keys without bound (one per verification, per number) `lockSlot` maps them onto a fixed set of
 * rows, so the table stays small. Two keys sharing a slot only wait for each other.
 */
export const schemaLocksMigration: Migration = {
  id: '000-event-store-locks',
  statements: (s) => [`CREATE TABLE IF NOT EXISTS ${s}.locks (key text PRIMARY KEY)`],
};

/** Slots for unbounded keys: enough that unrelated keys rarely share one at a few hundred concurrent transactions. */
export const LOCK_SLOTS = 16_384;

/** The slot key of an unbounded key of one kind (FNV-1a, 32 bits): kinds never share a slot. */
export function lockSlot(kind: string, key: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    hash ^= key.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return `${kind}:${(hash >>> 0) % LOCK_SLOTS}`;
}

/** The lock of a follower (an EventSubscription) and of a replay of its read models. */
export const subscriptionLockKey = (subscription: string): string => `subscription:${subscription}`;

/**
 * Waits for and takes the locks of `keys`, in one order (sorted), so that two transactions taking
 * several never deadlock on each other. A key's row is made on its first use.
 */
export async function lockKeys(tx: SqlExecutor, schema: string, keys: readonly string[]): Promise<void> {
  if (keys.length === 0) return;
  const s = quoteSchema(schema);
  const sorted = [...new Set(keys)].sort();
  const lock = `SELECT key FROM ${s}.locks WHERE key = ANY($1::text[]) ORDER BY key FOR UPDATE`;
  const locked = (await tx.query(lock, [sorted])) as unknown[];
  if (locked.length === sorted.length) return;
  // A key's first use: its row is made (another transaction making it at once waits for this one).
  await tx.query(`INSERT INTO ${s}.locks (key) SELECT unnest($1::text[]) ON CONFLICT DO NOTHING`, [sorted]);
  await tx.query(lock, [sorted]);
}

/**
 * Makes the rows of `keys` (committed, outside the transactions that lock them): `tryLockKey`
 * finds only a made row, since a row another transaction is still making would make it wait.
 */
export async function makeLockKeys(db: SqlExecutor, schema: string, keys: readonly string[]): Promise<void> {
  await db.query(`INSERT INTO ${quoteSchema(schema)}.locks (key) SELECT unnest($1::text[]) ON CONFLICT DO NOTHING`, [[...keys]]);
}

/** Takes the lock of `key` (made by `makeLockKeys`) if no other transaction holds it: false at once when one does. */
export async function tryLockKey(tx: SqlExecutor, schema: string, key: string): Promise<boolean> {
  const locked = (await tx.query(`SELECT key FROM ${quoteSchema(schema)}.locks WHERE key = $1 FOR UPDATE SKIP LOCKED`, [key])) as unknown[];
  return locked.length > 0;
}
