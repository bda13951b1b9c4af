import type { MessageLifecycleEvent, MessageState } from '@seed/sms-batch-domain';
import type { CarrierReceipt } from '@seed/sms-batch-contracts';
import { receiptKeys } from './carrier-ids.sql';
import type { LifecycleItem } from './lifecycle-item';

const MAX_CACHED_STATES = 100_000;
const MAX_REMEMBERED_CARRIER_IDS = 200_000;

/** A message's folded state, and the trace its events carry on (the submission's, once sent). */
export type CachedState = { version: number; state: MessageState; traceparent: string | null };
/** What a committed flush leaves to remember: folded states, and the carrier ids it recorded. */
export type Committed = { states: [string, CachedState][]; sent: { key: string; umid: string }[]; types: string[]; events: MessageLifecycleEvent[] };

/** What the lifecycle writer keeps between flushes so that a receipt's decision needs no reads. */
export class LifecycleMemory {
  /**
   * Folded state of messages between their submission and their receipt, so the receipt's
   * decision needs no second read of the stream. Only ever a shortcut: the append's expected
   * version still guards, and a conflict empties it.
   */
  readonly states = new Map<string, CachedState>();
  /**
   * Carrier id (normalised) -> umid of the submissions this writer recorded, so that their receipts
   * need no lookup in carrier_ids: a flush of receipts is then only the append. The table stays
   * the record (other replicas, restarts, ids seen only in another form); a later message that
   * gets the same id replaces the entry, as the latest one wins there too.
   */
  readonly carrierIds = new Map<string, string>();

  /** A receipt for a submission this writer recorded: its message is known without a lookup. */
  knows(receipt: CarrierReceipt): boolean {
    return receiptKeys(receipt).some((key) => this.carrierIds.has(key));
  }

  /** Committed: the folded states are now what the streams hold, the carrier ids what the table holds. */
  remember({ states, sent }: Committed): void {
    for (const { key, umid } of sent) {
      this.carrierIds.delete(key); // re-inserted at the end: the newest entries are evicted last
      this.carrierIds.set(key, umid);
    }
    for (const key of this.carrierIds.keys()) {
      if (this.carrierIds.size <= MAX_REMEMBERED_CARRIER_IDS) break;
      this.carrierIds.delete(key);
    }
    for (const [umid, entry] of states) {
      // Only sent messages wait here for their receipts. A queued one may be sent next by another
      // replica (after a failover this one recorded), so a state kept from now could be stale then.
      if (entry.state.status === 'sent') this.states.set(umid, entry);
      else this.states.delete(umid);
    }
    // Oldest first out: a Map iterates in insertion order.
    for (const umid of this.states.keys()) {
      if (this.states.size <= MAX_CACHED_STATES) break;
      this.states.delete(umid);
    }
  }

  forget(items: LifecycleItem[]): void {
    for (const item of items) {
      if ('umid' in item) this.states.delete(item.umid);
      for (const key of 'receipt' in item ? receiptKeys(item.receipt) : []) {
        const umid = this.carrierIds.get(key);
        if (umid) this.states.delete(umid);
      }
    }
  }
}
