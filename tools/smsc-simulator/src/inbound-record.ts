import type { ReceiptChannel } from './delivery-receipts';
import type { InboundPart } from './inbound-deliver-sm';
import type { InboundRequest } from './inbound-request';
import type { InboundEncoding } from './inbound-segmentation';

/** What the simulator keeps about a mobile-originated message: what it sent, to whom, and what came back. */

/** A session that can take deliver_sm, as the inbound side sees it. */
export interface InboundChannel extends ReceiptChannel {
  readonly id: number;
  readonly bindType: string | null;
  readonly remote: string;
  /** Bound as receiver or transceiver and not closing. */
  readonly canReceive: boolean;
}

export interface SessionRef {
  id: number;
  systemId: string;
  bindType: string | null;
  remote: string;
}

/**
 * `first` and `duplicate` as asked; `resend` after a response counted as lost (loseFirstResponse);
 * `redelivery` when the session closed before the answer, no answer came in time, or the answer
 * was an error.
 */
export type SendReason = 'first' | 'duplicate' | 'resend' | 'redelivery';

export interface InboundDelivery {
  part: number;
  reason: SendReason;
  sequenceNumber: number;
  session: SessionRef;
  sentAt: Date;
  /** null until the ESME answers; `lost` when loseFirstResponse made the simulator ignore it. */
  response: { status: number; receivedAt: Date; lost: boolean } | null;
}

/** Where each part stands; what decides whether a part is owed another send. */
export interface PartProgress {
  /** Parts answered with status 0 (answers counted as lost aside). */
  acknowledged: Set<number>;
  /** Parts waiting in the send queue. */
  queued: Set<number>;
  /** Per part, deliver_sm sent and not answered yet (those whose answer will be ignored aside). */
  outstanding: Map<number, number>;
}

export interface InboundRecord {
  id: string;
  createdAt: Date;
  request: InboundRequest;
  encoding: InboundEncoding;
  dataCoding: number;
  parts: InboundPart[];
  /** The reference in the UDH or SAR TLVs; null for a single part. */
  reference: number | null;
  /** Every deliver_sm sent, in sending order. */
  deliveries: InboundDelivery[];
  /** Resends (loseFirstResponse) that found no session able to take them; they wait for the next bind. */
  unsentResends: { part: number; dueAt: Date }[];
  progress: PartProgress;
  /** Set by `DELETE /inbound`: nothing more is sent for it. */
  cancelled: boolean;
}
