import type { NewEvent } from '@seed/contracts';
import type { InboundMessageReceivedV1, InboundPartReceivedV1, InboundPartV1 } from '@seed/sms-batch-contracts';
import { isComplete, joinParts, keywordOf, type InboundPart } from '../inbound';

/*
 * Inbound messages as they are recorded: a single part at once, a concatenated message when its
 * last part arrives (or, incomplete, when its first part has waited too long). A carrier whose
 * deliver_sm_resp was lost sends the same deliver_sm again; that copy must not make a second
 * message, so a part equal to one recorded within `duplicateWindowMs` is taken as that one.
 */

/** The number's owner, as the numbers stream says when the message arrives; null: not one of ours. */
export interface InboundAddressee {
  accountId: string;
  subAccountId: string;
  inboundWebhookUrl: string | null;
}

export interface InboundArrival {
  part: InboundPart;
  carrierId: string;
  receivedAt: string;
  /** Ids the caller drew, used when the decision needs them. */
  umid: string;
  groupId: string;
  addressee: InboundAddressee | null;
  duplicateWindowMs: number;
  /** The carrier may not deliver to the number: the message has no owner and says so. */
  unboundCarrier?: boolean;
}

export type InboundEvent = NewEvent<InboundPartReceivedV1, 'InboundPartReceived'> | NewEvent<InboundMessageReceivedV1, 'InboundMessageReceived'>;

/** A stream of inbound messages: a single part's (its sender, number and text), or one reference's parts. */
export interface InboundStreamState {
  /** The parts of the message still waiting for siblings. */
  open: { groupId: string; openedAt: string; parts: InboundPartReceivedV1[] } | null;
  /** The last message recorded in the stream: its parts and when, to know a carrier's resend. */
  last: { parts: InboundPartV1[]; receivedAt: string } | null;
}

export const EMPTY_INBOUND_STREAM: InboundStreamState = { open: null, last: null };

export function evolveInbound(state: InboundStreamState, event: { type: string; data: unknown }): InboundStreamState {
  const e = event as InboundEvent;
  switch (e.type) {
    case 'InboundPartReceived': {
      const open = state.open?.groupId === e.data.groupId ? state.open : { groupId: e.data.groupId, openedAt: e.data.receivedAt, parts: [] };
      return { ...state, open: { ...open, parts: [...open.parts, e.data] } };
    }
    case 'InboundMessageReceived':
      return { open: null, last: { parts: state.open?.parts.map((p) => p.part) ?? [], receivedAt: e.data.receivedAt } };
    default:
      return state;
  }
}

/** What one arriving part makes: nothing (a copy), a part kept for its siblings, and the message when it is whole. */
export function decideInboundPart(arrival: InboundArrival, state: InboundStreamState): InboundEvent[] {
  const { part, carrierId, receivedAt } = arrival;
  if (isCopy(part, state, arrival)) return [];
  if (part.concatenation === null) return [{ type: 'InboundMessageReceived', schemaVersion: 1, data: messageOf([part], arrival, false) }];
  const groupId = state.open?.groupId ?? arrival.groupId;
  const kept: InboundPartReceivedV1 = { groupId, carrierId, part, receivedAt };
  const parts = [...(state.open?.parts.map((p) => p.part) ?? []), part];
  if (!isComplete(parts)) return [{ type: 'InboundPartReceived', schemaVersion: 1, data: kept }];
  return [
    { type: 'InboundPartReceived', schemaVersion: 1, data: kept },
    { type: 'InboundMessageReceived', schemaVersion: 1, data: messageOf(parts, arrival, false) },
  ];
}

/** The parts that waited `maxWaitMs` for their siblings, delivered as they are, marked incomplete. */
export function decideInboundExpiry(
  expiry: { at: string; umid: string; addressee: InboundAddressee | null; maxWaitMs: number; unboundCarrier?: boolean },
  state: InboundStreamState,
): InboundEvent[] {
  const open = state.open;
  if (!open || Date.parse(open.openedAt) + expiry.maxWaitMs > Date.parse(expiry.at)) return [];
  const first = open.parts[0] as InboundPartReceivedV1;
  const parts = open.parts.map((p) => p.part as InboundPart);
  return [{ type: 'InboundMessageReceived', schemaVersion: 1, data: messageOf(parts, { ...expiry, carrierId: first.carrierId, receivedAt: expiry.at }, true) }];
}

/** The same part again: already waiting in the open message, or in the last message of the stream within the window. */
function isCopy(part: InboundPart, state: InboundStreamState, arrival: InboundArrival): boolean {
  const sequence = part.concatenation?.sequence ?? null;
  if (sequence !== null && state.open?.parts.some((p) => p.part.concatenation?.sequence === sequence)) return true;
  const last = state.last;
  if (!last || Date.parse(arrival.receivedAt) - Date.parse(last.receivedAt) > arrival.duplicateWindowMs) return false;
  return last.parts.length === 0 ? sequence === null : last.parts.some((p) => p.userData === part.userData && (p.concatenation?.sequence ?? null) === sequence);
}

function messageOf(parts: readonly InboundPart[], arrival: Pick<InboundArrival, 'umid' | 'addressee' | 'carrierId' | 'receivedAt' | 'unboundCarrier'>, expired: boolean): InboundMessageReceivedV1 {
  const first = parts[0] as InboundPart;
  const joined = joinParts(parts);
  return {
    umid: arrival.umid,
    accountId: arrival.addressee?.accountId ?? null,
    subAccountId: arrival.addressee?.subAccountId ?? null,
    source: first.source,
    destination: first.destination,
    body: joined.text,
    encoding: joined.encoding,
    smsCount: joined.smsCount,
    incomplete: expired || joined.incomplete,
    keyword: keywordOf(joined.text),
    inboundWebhookUrl: arrival.addressee?.inboundWebhookUrl ?? null,
    carrierId: arrival.carrierId,
    receivedAt: arrival.receivedAt,
    ...(arrival.unboundCarrier ? { unboundCarrier: true as const } : {}),
  };
}
