import { rowsOf, type SqlExecutor } from '@seed/platform-event-store';
import type { CarrierReceipt } from '@seed/sms-batch-contracts';

// Receipts that arrived before their submission was recorded wait in parked_receipts.

/** Receipts parked under these keys, taken off the table to be applied now. */
export async function takeParkedReceipts(tx: SqlExecutor, s: string, keys: string[]): Promise<{ carrier_key: string; receipt: CarrierReceipt }[]> {
  return rowsOf(await tx.query(`DELETE FROM ${s}.parked_receipts WHERE carrier_key = ANY($1::text[]) RETURNING carrier_key, receipt`, [keys]));
}

/**
 * Parked receipts at least two seconds old (their submission may have been recorded since by
 * another replica), up to 500, taken off the table to be tried again; concurrent sweeps skip each
 * other's rows.
 */
export async function takeStaleParkedReceipts(tx: SqlExecutor, s: string): Promise<{ receipt: CarrierReceipt; parked_at: Date }[]> {
  return rowsOf(
    await tx.query(
      `DELETE FROM ${s}.parked_receipts WHERE id IN (
         SELECT id FROM ${s}.parked_receipts WHERE parked_at < now() - interval '2 seconds'
          ORDER BY id LIMIT 500 FOR UPDATE SKIP LOCKED)
       RETURNING receipt, parked_at`,
    ),
  );
}
