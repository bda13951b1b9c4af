import type { NewEvent } from '@seed/contracts';
import {
  OPTED_OUT_ERROR_CODE,
  type CarrierReceipt,
  type MessageDeliveredV1,
  type MessageQueuedV1,
  type MessageRef,
  type MessageRejectedV1,
  type MessageRoutedV1,
  type MessageSentV1,
  type MessageUndeliveredV1,
  type ReceiptRecordedV1,
} from '@seed/sms-batch-contracts';
import { deliveredParts, partsMatching } from './carrier-message-id';
import { NO_ROUTE_ERROR_CODE, routed, type RoutingDecision } from './message-routed';

export { NO_ROUTE_ERROR_CODE, type RoutingDecision } from './message-routed';

/*
 * The message aggregate (stream `sms-message-<umid>`) after acceptance:
 * queued -> sent -> delivered | undelivered, or queued -> undelivered (expired or refused before
 * hand-off); rejected at acceptance. A final state never moves back.
 */

export type MessageStatus = 'none' | 'queued' | 'rejected' | 'sent' | 'delivered' | 'undelivered';

export interface MessageState {
  status: MessageStatus;
  ref: MessageRef | null;
  /** What the sender needs to build the submit_sm parts (null unless queued at some point). */
  text: string | null;
  encoding: 'GSM7' | 'UCS2' | null;
  scheduled: string | null;
  expiry: string | null;
  /** One per part, in part order, once sent. */
  carrierMessageIds: string[];
  /** The DELIVRD receipt of each part delivered so far. */
  deliveredReceipts: CarrierReceipt[];
}

export type MessageCommand =
  | { type: 'RecordSubmission'; carrierMessageIds: string[]; at: string; routing?: RoutingDecision }
  /** A permanent carrier refusal of submit_sm (temporary ones are retried, never recorded). */
  | { type: 'RecordSubmissionFailure'; errorCode: string; errorMessage: string; at: string; routing?: RoutingDecision }
  /** The carrier could not take the message now; it goes on to the next carrier of its route. */
  | { type: 'RecordFailover'; routing: RoutingDecision; detail: string; at: string }
  /** No route takes the message, or every carrier of its route is disabled. */
  | { type: 'RecordNoRoute'; detail: string; at: string }
  /** The recipient opted out of the message's sub-account: never handed to a carrier. */
  | { type: 'RecordOptedOut'; at: string }
  | { type: 'ExpireBeforeHandoff'; at: string }
  | { type: 'RecordReceipt'; receipt: CarrierReceipt };

export type MessageLifecycleEvent =
  | NewEvent<MessageRoutedV1, 'MessageRouted'>
  | NewEvent<MessageSentV1, 'MessageSent'>
  | NewEvent<MessageDeliveredV1, 'MessageDelivered'>
  | NewEvent<MessageUndeliveredV1, 'MessageUndelivered'>
  | NewEvent<ReceiptRecordedV1, 'ReceiptRecorded'>;

/**
 * A receipt for a message not yet recorded as sent: the carrier answered faster than MessageSent
 * was appended. The caller parks the receipt and applies it after MessageSent.
 */
export class ReceiptBeforeSubmissionError extends Error {
  constructor(
    readonly umid: string,
    readonly carrierMessageId: string,
  ) {
    super(`Receipt for carrier id ${carrierMessageId} arrived before message ${umid} was recorded as sent`);
    this.name = 'ReceiptBeforeSubmissionError';
  }
}

/** Receipt stats that end a message as undelivered, with the errorMessage reported for each. */
export const FAILURE_STAT_MESSAGES: Readonly<Record<string, string>> = {
  UNDELIV: 'Message is undeliverable',
  EXPIRED: 'Message validity period expired',
  REJECTD: 'Message rejected by the carrier',
  DELETED: 'Message deleted by the carrier',
};

const DELIVERED_STAT = 'DELIVRD';


export const initialMessageState = (): MessageState => ({
  status: 'none',
  ref: null,
  text: null,
  encoding: null,
  scheduled: null,
  expiry: null,
  carrierMessageIds: [],
  deliveredReceipts: [],
});

/** Events come from this aggregate's own stream, written by this decider: their data is trusted. */
export function evolveMessage(state: MessageState, event: { type: string; data: unknown }): MessageState {
  switch (event.type) {
    case 'MessageQueued': {
      const data = event.data as MessageQueuedV1;
      return {
        ...state,
        status: 'queued',
        ref: refOf(data),
        text: data.text,
        encoding: data.encoding,
        scheduled: data.scheduled,
        expiry: data.expiry,
      };
    }
    case 'MessageRejected': {
      const data = event.data as MessageRejectedV1;
      return { ...state, status: 'rejected', ref: refOf(data), encoding: data.encoding };
    }
    case 'MessageSent': {
      const data = event.data as MessageSentV1;
      return { ...state, status: 'sent', carrierMessageIds: [...data.carrierMessageIds] };
    }
    case 'MessageDelivered': {
      const data = event.data as MessageDeliveredV1;
      return { ...state, status: 'delivered', deliveredReceipts: [...data.receipts] };
    }
    case 'MessageUndelivered':
      return { ...state, status: 'undelivered' };
    case 'ReceiptRecorded': {
      const data = event.data as ReceiptRecordedV1;
      return data.note === 'part-delivered'
        ? { ...state, deliveredReceipts: [...state.deliveredReceipts, data.receipt] }
        : state;
    }
    default:
      return state;
  }
}

export function decideMessage(command: MessageCommand, state: MessageState): MessageLifecycleEvent[] {
  const ref = state.ref;
  if (state.status === 'none' || ref === null) {
    throw new Error(`${command.type} for a message that was never queued`);
  }
  switch (command.type) {
    case 'RecordSubmission':
      if (state.status !== 'queued') return [];
      return [
        ...routed(ref, command.routing, 'handed-off', null, command.at),
        ...recordSubmission(command.carrierMessageIds, command.at, ref, command.routing?.carrierId),
      ];
    case 'RecordFailover':
      return state.status === 'queued' ? routed(ref, command.routing, 'failed-over', command.detail, command.at) : [];
    case 'RecordNoRoute':
      if (state.status !== 'queued') return [];
      return [
        undelivered(ref, {
          reason: 'no-route',
          detail: command.detail,
          errorCode: NO_ROUTE_ERROR_CODE,
          errorMessage: command.detail,
          receipt: null,
          undeliveredAt: command.at,
        }),
      ];
    case 'RecordOptedOut':
      if (state.status !== 'queued') return [];
      return [
        undelivered(ref, {
          reason: 'opted-out',
          detail: 'the recipient opted out of this sub-account',
          errorCode: OPTED_OUT_ERROR_CODE,
          errorMessage: 'the recipient opted out of messages from this sub-account',
          receipt: null,
          undeliveredAt: command.at,
        }),
      ];
    case 'RecordSubmissionFailure':
      if (state.status !== 'queued') return [];
      return [
        ...routed(ref, command.routing, 'refused', `submit_sm refused: ${command.errorCode}`, command.at),
        undelivered(ref, {
          reason: 'carrier-rejected',
          detail: `submit_sm refused: ${command.errorCode}`,
          errorCode: command.errorCode,
          errorMessage: command.errorMessage,
          receipt: null,
          undeliveredAt: command.at,
        }),
      ];
    case 'ExpireBeforeHandoff':
      if (state.status !== 'queued' || state.expiry === null || instant(state.expiry) > instant(command.at)) return [];
      return [
        undelivered(ref, {
          reason: 'expired',
          detail: 'expiry passed before hand-off',
          errorCode: null,
          errorMessage: null,
          receipt: null,
          undeliveredAt: command.at,
        }),
      ];
    case 'RecordReceipt':
      return recordReceipt(command.receipt, state, ref);
    default:
      return assertNever(command);
  }
}

function recordSubmission(carrierMessageIds: string[], at: string, ref: MessageRef, carrierId: string | undefined): MessageLifecycleEvent[] {
  // The part count decides when a message is delivered, so it must be the one accepted. A blank
  // id is still recorded: the carrier has the message, and refusing the fact would invite a resend.
  if (carrierMessageIds.length !== ref.smsCount) {
    throw new Error(`RecordSubmission for ${ref.umid} needs ${ref.smsCount} carrier ids, got ${JSON.stringify(carrierMessageIds)}`);
  }
  const data: MessageSentV1 = { ...ref, ...(carrierId === undefined ? {} : { carrierId }), carrierMessageIds: [...carrierMessageIds], sentAt: at };
  return [{ type: 'MessageSent', schemaVersion: 1, data }];
}

function recordReceipt(receipt: CarrierReceipt, state: MessageState, ref: MessageRef): MessageLifecycleEvent[] {
  switch (state.status) {
    case 'queued':
      throw new ReceiptBeforeSubmissionError(ref.umid, receipt.carrierMessageId);
    case 'rejected':
    case 'none':
      throw new Error(`Receipt for carrier id ${receipt.carrierMessageId} on message ${ref.umid}, which was ${state.status}`);
    case 'delivered':
    case 'undelivered':
      return [recorded(ref, receipt, 'after-final-state')];
    case 'sent':
      return receiptWhileSent(receipt, state, ref);
    default:
      return assertNever(state.status);
  }
}

function receiptWhileSent(receipt: CarrierReceipt, state: MessageState, ref: MessageRef): MessageLifecycleEvent[] {
  const ids = state.carrierMessageIds;
  const delivered = deliveredParts(ids, state.deliveredReceipts);
  const candidates = partsMatching(ids, receipt.carrierMessageId);
  if (candidates.length === 0) {
    throw new Error(`Receipt for carrier id ${receipt.carrierMessageId} matches no part of message ${ref.umid}`);
  }
  const part = candidates.find((index) => !delivered.has(index));

  if (receipt.stat === DELIVERED_STAT) {
    if (part === undefined) return [recorded(ref, receipt, 'duplicate')];
    if (delivered.size + 1 < ids.length) return [recorded(ref, receipt, 'part-delivered')];
    const byPart = new Map(delivered);
    byPart.set(part, receipt);
    const receipts = [...byPart.entries()].sort(([a], [b]) => a - b).map(([, partReceipt]) => partReceipt);
    return [{ type: 'MessageDelivered', schemaVersion: 1, data: { ...ref, receipts, deliveredAt: receipt.receivedAt } }];
  }

  const failure = FAILURE_STAT_MESSAGES[receipt.stat];
  if (failure === undefined) return [recorded(ref, receipt, 'not-final')];
  // A part that was delivered stays delivered: a later failure receipt for it changes nothing.
  if (part === undefined) return [recorded(ref, receipt, 'after-final-state')];
  return [
    undelivered(ref, {
      reason: 'receipt',
      detail: receipt.stat,
      errorCode: receipt.err,
      errorMessage: failure,
      receipt,
      undeliveredAt: receipt.receivedAt,
    }),
  ];
}

function undelivered(ref: MessageRef, outcome: Omit<MessageUndeliveredV1, keyof MessageRef>): MessageLifecycleEvent {
  return { type: 'MessageUndelivered', schemaVersion: 1, data: { ...ref, ...outcome } };
}

function recorded(ref: MessageRef, receipt: CarrierReceipt, note: ReceiptRecordedV1['note']): MessageLifecycleEvent {
  return { type: 'ReceiptRecorded', schemaVersion: 1, data: { ...ref, receipt, note } };
}

/** The reference every lifecycle event repeats, field by field so nothing else leaks in. */
function refOf(data: MessageQueuedV1 | MessageRejectedV1): MessageRef {
  return {
    umid: data.umid,
    batchId: data.batchId,
    clientBatchId: data.clientBatchId,
    clientMessageId: data.clientMessageId,
    accountId: data.accountId,
    subAccountId: data.subAccountId,
    destination: data.destination,
    source: data.source,
    smsCount: data.smsCount,
    dlrCallbackUrl: data.dlrCallbackUrl,
  };
}

function instant(iso: string): number {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) throw new Error(`Not an ISO-8601 instant: "${iso}"`);
  return ms;
}

function assertNever(value: never): never {
  throw new Error(`Unhandled case: ${JSON.stringify(value)}`);
}
