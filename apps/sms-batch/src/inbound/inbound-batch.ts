import { randomUUID } from 'node:crypto';
import type { AppendToStream, StoredEvent } from '@seed/platform-event-store';
import type { InboundMessageReceivedV1 } from '@seed/sms-batch-contracts';
import { decideInboundPart, EMPTY_INBOUND_STREAM, evolveInbound, type InboundAddressee, type InboundEvent, type InboundPart, type InboundStreamState } from '@seed/sms-batch-domain';

/** One deliver_sm waiting to be recorded: its part, the stream it belongs in, its number's owner. */
export interface InboundItem {
  part: InboundPart;
  streamId: string;
  carrierId: string;
  receivedAt: string;
  addressee: InboundAddressee | null;
  /** The carrier may not deliver to the number (mayDeliverInbound): no owner, and the message says so. */
  unboundCarrier?: boolean;
}

export interface InboundBatchDecision {
  /** The events decided for each item, in the items' order (none: a copy). */
  perItem: InboundEvent[][];
  /** One append per stream that changed, correlated by the last message it completed (or its own id). */
  appends: AppendToStream[];
  /** The whole messages decided, in order: their opt-outs and HELP answers follow. */
  messages: InboundMessageReceivedV1[];
  /** Group streams that now wait for parts, and those that no longer do. */
  opened: string[];
  closed: string[];
}

/**
 * The decisions for a batch of deliver_sm, made on their streams as stored: items of one stream
 * are decided one after the other on the state the previous left (the parts of one message, a
 * carrier's resend), so a batch decides exactly what the same deliver_sm one by one would.
 */
export function decideInboundBatch(items: readonly InboundItem[], stored: ReadonlyMap<string, readonly StoredEvent[]>, duplicateWindowMs: number): InboundBatchDecision {
  const initial = new Map<string, InboundStreamState>();
  const states = new Map<string, InboundStreamState>();
  const decided = new Map<string, { events: InboundEvent[]; correlationId: string }>();
  const perItem: InboundEvent[][] = [];
  const messages: InboundMessageReceivedV1[] = [];
  for (const item of items) {
    if (!states.has(item.streamId)) {
      const state = (stored.get(item.streamId) ?? []).reduce(evolveInbound, EMPTY_INBOUND_STREAM);
      initial.set(item.streamId, state);
      states.set(item.streamId, state);
    }
    const state = states.get(item.streamId) as InboundStreamState;
    const events = decideInboundPart({ ...item, umid: randomUUID(), groupId: randomUUID(), duplicateWindowMs }, state);
    states.set(item.streamId, events.reduce(evolveInbound, state));
    perItem.push(events);
    const stream = decided.get(item.streamId) ?? { events: [], correlationId: item.streamId };
    for (const event of events) {
      stream.events.push(event);
      if (event.type === 'InboundMessageReceived') {
        messages.push(event.data);
        stream.correlationId = event.data.umid;
      }
    }
    decided.set(item.streamId, stream);
  }
  const appends = [...decided].map(([streamId, { events, correlationId }]) => ({ streamId, expectedVersion: stored.get(streamId)?.length ?? 0, events, correlationId }));
  const groups = [...states.keys()].filter((streamId) => streamId.startsWith('inbound-group-'));
  return {
    perItem,
    appends,
    messages,
    opened: groups.filter((s) => !initial.get(s)?.open && states.get(s)?.open),
    closed: groups.filter((s) => initial.get(s)?.open && !states.get(s)?.open),
  };
}
