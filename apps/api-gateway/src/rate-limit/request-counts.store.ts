import { DataSource } from 'typeorm';
import { quoteSchema } from '@seed/platform-event-store';

/**
 * The requests given out per sub-account and second, shared by the gateway replicas in PostgreSQL
 * (an unlogged table: counts of the last seconds are worth no WAL, and a crash only forgets them).
 */
export class RequestCountsStore {
  private readonly table: string;

  constructor(
    private readonly dataSource: DataSource,
    schema: string,
  ) {
    this.table = `${quoteSchema(schema)}.request_grants`;
  }

  /**
   * Gives out up to `wanted` more of the second's `limit`, atomically (the row is locked by the
   * update, so concurrent leases of several replicas add up to at most the limit), and answers how
   * many were given. `last_lease` is there to return that amount: SET sees the row before the update.
   */
  async lease(subAccountId: string, second: number, wanted: number, limit: number): Promise<number> {
    const rows: { last_lease: number }[] = await this.dataSource.query(
      `INSERT INTO ${this.table} AS g (sub_account_id, second, granted, last_lease)
       VALUES ($1, $2, LEAST($3::int, $4::int), LEAST($3::int, $4::int))
       ON CONFLICT (sub_account_id, second) DO UPDATE
         SET granted = g.granted + LEAST($3::int, GREATEST($4::int - g.granted, 0)),
             last_lease = LEAST($3::int, GREATEST($4::int - g.granted, 0))
       RETURNING last_lease`,
      [subAccountId, second, wanted, limit],
    );
    return rows[0]?.last_lease ?? 0;
  }

  /** Drops the counts of seconds long gone (whichever replica runs it). */
  async forgetBefore(second: number): Promise<void> {
    await this.dataSource.query(`DELETE FROM ${this.table} WHERE second < $1`, [second]);
  }
}
