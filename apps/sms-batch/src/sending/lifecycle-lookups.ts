import type { Logger } from 'pino';
import { rowsOf, type SqlExecutor } from '@seed/platform-event-store';
import { fencedOff as fencedOffRows } from '@seed/platform-work-queue';
import { carrierIdKey, carrierIdKeys, carrierScopedKey, type MessageCommand } from '@seed/sms-batch-domain';
import type { CarrierReceipt } from '@seed/sms-batch-contracts';
import { outboundQueueMetrics, outboundQueueTable } from './outbound-queue.table';

/**
 * A decision to record: about a known message, or a receipt whose message is found by carrier id.
 * The sender's results carry the fencing token of the claim they come from (see `fencedOff`).
 */
export type LifecycleItem =
  | { umid: string; command: Exclude<MessageCommand, { type: 'RecordReceipt' }>; leaseToken?: string; traceparent?: string | null }
  | { receipt: CarrierReceipt };

/**
 * Results of claims that are no longer the row's: the lease ran out and another sender claimed
 * the message again (this replica was paused, or cut off from the database). Their row is locked
 * here, so no claim can take it until this transaction ends; a row that is gone was recorded
 * already, and the decider treats the result as the repeat it is.
 */
export async function fencedOff(tx: SqlExecutor, s: string, items: LifecycleItem[], logger: Logger): Promise<Set<LifecycleItem>> {
  const held = items.filter((i): i is Extract<LifecycleItem, { umid: string }> => 'umid' in i && i.leaseToken !== undefined);
  if (held.length === 0) return new Set();
  const staleUmids = await fencedOffRows(tx, outboundQueueTable(s), held.map((i) => ({ id: i.umid, leaseToken: i.leaseToken as string })));
  const stale = held.filter((i) => staleUmids.has(i.umid));
  outboundQueueMetrics.fencedOff(stale.length);
  if (stale.length > 0) {
    logger.warn(
      { umids: stale.map((i) => i.umid), commands: stale.map((i) => i.command.type) },
      'results of claims whose lease ran out are not recorded: another sender holds these messages now',
    );
  }
  return new Set(stale);
}

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

/** Receipts parked under these keys, taken off the table to be applied now. */
export async function takeParkedReceipts(tx: SqlExecutor, s: string, keys: string[]): Promise<{ carrier_key: string; receipt: CarrierReceipt }[]> {
  return rowsOf(await tx.query(`DELETE FROM ${s}.parked_receipts WHERE carrier_key = ANY($1::text[]) RETURNING carrier_key, receipt`, [keys]));
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
