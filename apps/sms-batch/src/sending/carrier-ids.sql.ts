import type { SqlExecutor } from '@seed/platform-event-store';
import { carrierIdKey, carrierIdKeys, carrierScopedKey } from '@seed/sms-batch-domain';
import type { CarrierReceipt } from '@seed/sms-batch-contracts';

// Submissions' carrier ids, the table receipts are matched by (whichever replica receives them).

/** umids by stored carrier key; a carrier that restarts may hand out an id again: the latest message that got it wins. */
export async function umidsByCarrierKey(tx: SqlExecutor, s: string, keys: string[]): Promise<Map<string, string>> {
  if (keys.length === 0) return new Map();
  const rows: { carrier_key: string; umid: string }[] = await tx.query(
    `SELECT DISTINCT ON (carrier_key) carrier_key, umid FROM ${s}.carrier_ids
      WHERE carrier_key = ANY($1::text[]) ORDER BY carrier_key, seq DESC`,
    [keys],
  );
  return new Map(rows.map((r) => [r.carrier_key, r.umid]));
}

/** The carrier ids of submissions just recorded, for receipts that other replicas or a restart receive. */
export async function recordCarrierIds(tx: SqlExecutor, s: string, sent: { key: string; umid: string }[]): Promise<void> {
  if (sent.length === 0) return;
  await tx.query(
    `INSERT INTO ${s}.carrier_ids (carrier_key, umid)
     SELECT key, umid FROM jsonb_to_recordset($1::jsonb) AS r(key text, umid uuid) ON CONFLICT DO NOTHING`,
    [JSON.stringify(sent)],
  );
}

/** Every key a receipt's id may have been stored under, within its carrier. */
export function receiptKeys(receipt: CarrierReceipt): string[] {
  return carrierIdKeys(receipt.carrierMessageId).map((key) => carrierScopedKey(receipt.carrierId, key));
}

/** The one key of a receipt's own id, within its carrier. */
export function receiptKey(receipt: CarrierReceipt): string {
  return carrierScopedKey(receipt.carrierId, carrierIdKey(receipt.carrierMessageId));
}
