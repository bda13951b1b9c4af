/**
 * What happens to a queued message after acceptance, each an event in the message's stream
 * (`sms-message-<umid>`) on SMS_BATCH_EVENT_TOPIC. Every event repeats the message's reference so a
 * subscriber (the webhook dispatcher, anyone's consumer) needs no state of its own.
 *
 * States: queued -> sent -> delivered | undelivered; rejected at acceptance. A final state never
 * moves back: receipts arriving after it are recorded as ReceiptRecorded and change nothing.
 */
export interface MessageRef {
  umid: string;
  batchId: string;
  clientBatchId: string | null;
  clientMessageId: string | null;
  accountId: string;
  subAccountId: string;
  destination: string;
  source: string | null;
  smsCount: number;
  dlrCallbackUrl: string | null;
}

/**
 * A routing decision: the route that matched and the carrier chosen for one attempt. Written with
 * the hand-off it led to (just before MessageSent), or alone when that carrier failed the attempt
 * and the message moves on (`outcome` says why), so the history shows every carrier tried.
 */
export interface MessageRoutedV1 extends MessageRef {
  /** The matching route's id; null for the implicit catch-all (no route configured). */
  routeId: string | null;
  carrierId: string;
  /** 1 for the first carrier tried, 2 after one failover, ... */
  attempt: number;
  /** Per SMS part, as the route states it; null when it states none. */
  price: { amount: string; currency: string } | null;
  /**
   * `handed-off`: the carrier accepted every part; `refused`: it refused with a final error (the
   * message ends undelivered); `failed-over`: it could not take the message now (no bound session,
   * throttling, a temporary error, its session dropped) and the next carrier of the route is tried.
   */
  outcome: 'handed-off' | 'refused' | 'failed-over';
  /** Why it was refused or failed over; null when handed off. */
  detail: string | null;
  routedAt: string;
}

/** Handed to the carrier: every part was accepted with a carrier message id. */
export interface MessageSentV1 extends MessageRef {
  /** The carrier that accepted it (`default` for the one SMPP_URL defines). Absent in events written before routing. */
  carrierId?: string;
  /** One per part, in part order, as the carrier gave them (decimal or hex). */
  carrierMessageIds: string[];
  sentAt: string;
}

/** The receipt fields as the carrier sent them (text parsed leniently; the message_state TLV wins). */
export interface CarrierReceipt {
  carrierMessageId: string;
  /** The carrier whose session delivered the receipt. Absent in receipts recorded before routing. */
  carrierId?: string;
  /** DELIVRD, UNDELIV, EXPIRED, REJECTD, DELETED, UNKNOWN, ACCEPTD, ENROUTE. */
  stat: string;
  /** The carrier's error code (`err:` field), '000' when none. */
  err: string;
  submitDate: string | null;
  doneDate: string | null;
  receivedAt: string;
}

/** Every part was delivered. */
export interface MessageDeliveredV1 extends MessageRef {
  receipts: CarrierReceipt[];
  deliveredAt: string;
}

export type UndeliveredReason = 'expired' | 'carrier-rejected' | 'receipt' | 'no-route' | 'opted-out';

/** Final failure: expired before hand-off, refused by the carrier, a failure receipt, no route (`errorCode` NO_ROUTE), or a recipient who opted out (`errorCode` OPTED_OUT). */
export interface MessageUndeliveredV1 extends MessageRef {
  reason: UndeliveredReason;
  /** Human detail, e.g. "expiry passed before hand-off", "EXPIRED", "submit_sm refused: 0x0000000B". */
  detail: string;
  errorCode: string | null;
  errorMessage: string | null;
  receipt: CarrierReceipt | null;
  undeliveredAt: string;
}

/** A receipt that changed no state: one part of several, a duplicate, or one after a final state. */
export interface ReceiptRecordedV1 extends MessageRef {
  receipt: CarrierReceipt;
  /** Why it changed nothing. */
  note: 'part-delivered' | 'duplicate' | 'after-final-state' | 'not-final';
}
