import { ConcurrencyError, quoteSchema, type SqlExecutor } from '@seed/platform-event-store';

export interface ClientBatchKey {
  subAccountId: string;
  clientBatchId: string;
}

/** A map key for a sub-account's clientBatchId. */
export const clientBatchKey = ({ subAccountId, clientBatchId }: ClientBatchKey): string => JSON.stringify([subAccountId, clientBatchId]);

/**
 * The clientBatchIds taken, per sub-account: the first batch of each is the answer to every later
 * request with it. Reserved in the transaction that appends the batch, so a batch and its key are
 * written together or not at all.
 */
export class ClientBatchIds {
  private readonly table: string;

  constructor(schema: string) {
    this.table = `${quoteSchema(schema)}.client_batch_ids`;
  }

  /** The batch ids of those keys already taken, by `clientBatchKey`; one statement for any number. */
  async find(tx: SqlExecutor, keys: readonly ClientBatchKey[]): Promise<Map<string, string>> {
    if (keys.length === 0) return new Map();
    const rows: { sub_account_id: string; client_batch_id: string; batch_id: string }[] = await tx.query(
      `SELECT c.sub_account_id, c.client_batch_id, c.batch_id
         FROM ${this.table} c
         JOIN unnest($1::text[], $2::text[]) AS k(sub_account_id, client_batch_id)
           ON c.sub_account_id = k.sub_account_id AND c.client_batch_id = k.client_batch_id`,
      [keys.map((k) => k.subAccountId), keys.map((k) => k.clientBatchId)],
    );
    return new Map(rows.map((r) => [clientBatchKey({ subAccountId: r.sub_account_id, clientBatchId: r.client_batch_id }), r.batch_id]));
  }

  /**
   * Takes the keys for these batches, all or none: when another transaction took one between the
   * read and this insert, ConcurrencyError (decide again, and find it taken).
   */
  async reserve(tx: SqlExecutor, batches: readonly (ClientBatchKey & { batchId: string })[]): Promise<void> {
    if (batches.length === 0) return;
    const rows: unknown[] = await tx.query(
      `INSERT INTO ${this.table} (sub_account_id, client_batch_id, batch_id)
       SELECT * FROM unnest($1::text[], $2::text[], $3::uuid[])
       ON CONFLICT DO NOTHING RETURNING batch_id`,
      [batches.map((b) => b.subAccountId), batches.map((b) => b.clientBatchId), batches.map((b) => b.batchId)],
    );
    if (rows.length < batches.length) {
      throw new ConcurrencyError(`a clientBatchId of ${batches.map((b) => b.clientBatchId).join(', ')} was reserved concurrently`);
    }
  }
}
