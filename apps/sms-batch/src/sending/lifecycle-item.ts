import type { MessageCommand } from '@seed/sms-batch-domain';
import type { CarrierReceipt } from '@seed/sms-batch-contracts';

/**
 * A decision to record: about a known message, or a receipt whose message is found by carrier id.
 * The sender's results carry the fencing token of the claim they come from (see `fencedOff`).
 */
export type LifecycleItem =
  | { umid: string; command: Exclude<MessageCommand, { type: 'RecordReceipt' }>; leaseToken?: string; traceparent?: string | null }
  | { receipt: CarrierReceipt };
