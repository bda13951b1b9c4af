import type { CarrierReceipt } from '@seed/sms-batch-contracts';

/**
 * Carriers answer submit_sm with a message id in one form (often hex) and quote it in the
 * delivery receipt in another (often decimal), sometimes padded with leading zeros or in another
 * case. These keys let the sender index a submitted id under every form a receipt may use, and
 * let a receipt be looked up with one key.
 */

const HEX = /^[0-9a-f]+$/;
const DECIMAL = /^[0-9]+$/;

/**
 * Every key under which to store a submitted id: its normalised form (lower case, leading zeros
 * stripped), plus its decimal value when it reads as hex and its hex value when it reads as
 * decimal. Deduplicated; empty for an empty id, which nothing can match.
 */
export function carrierIdKeys(id: string): string[] {
  const key = carrierIdKey(id);
  if (key === '') return [];
  const keys = [key];
  if (HEX.test(key)) keys.push(BigInt(`0x${key}`).toString(10));
  if (DECIMAL.test(key)) keys.push(BigInt(key).toString(16));
  return [...new Set(keys)];
}

/**
 * The one key to look a receipt's id up with: trimmed (and without the NUL a C-octet string may
 * carry), lower case, leading zeros stripped ('000' is '0').
 */
export function carrierIdKey(id: string): string {
  const trimmed = id.replace(/\0/g, '').trim().toLowerCase();
  if (trimmed === '') return '';
  const stripped = trimmed.replace(/^0+/, '');
  return stripped === '' ? '0' : stripped;
}

/** True when either id, read in any of its forms, is the other's key. Empty ids match nothing. */
export function sameCarrierId(a: string, b: string): boolean {
  const keyA = carrierIdKey(a);
  const keyB = carrierIdKey(b);
  if (keyA === '' || keyB === '') return false;
  return carrierIdKeys(a).includes(keyB) || carrierIdKeys(b).includes(keyA);
}

/**
 * Message ids are unique only within one carrier: keys of every carrier but `default` (the one
 * SMPP_URL defines, whose keys were stored before there were others) carry the carrier's id.
 */
export function carrierScopedKey(carrierId: string | undefined, key: string): string {
  return carrierId === undefined || carrierId === 'default' || key === '' ? key : `${carrierId}/${key}`;
}

/**
 * Parts (indices) a receipt id may belong to: those whose id has the same key first, then those
 * equal only in another base, so that a hex id never steals a receipt meant for a decimal one.
 */
export function partsMatching(ids: string[], receiptId: string): number[] {
  const key = carrierIdKey(receiptId);
  const exact = ids.flatMap((id, index) => (carrierIdKey(id) === key && key !== '' ? [index] : []));
  const other = ids.flatMap((id, index) => (!exact.includes(index) && sameCarrierId(id, receiptId) ? [index] : []));
  return [...exact, ...other];
}

/** Part index -> its DELIVRD receipt, assigning each receipt as the decider did when it came. */
export function deliveredParts(ids: string[], receipts: CarrierReceipt[]): Map<number, CarrierReceipt> {
  const delivered = new Map<number, CarrierReceipt>();
  for (const receipt of receipts) {
    const part = partsMatching(ids, receipt.carrierMessageId).find((index) => !delivered.has(index));
    if (part !== undefined) delivered.set(part, receipt);
  }
  return delivered;
}
