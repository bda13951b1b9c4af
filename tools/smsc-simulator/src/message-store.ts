import type { ConcatenationInfo } from './concatenation';
import type { FinalState } from './simulator.config';
import { decodeText } from './sms-text.codec';

/**
 * What the simulator received, for the inspection API: one record per logical message, with the
 * parts of a concatenated message joined up whatever order they arrived in. Bounded: past
 * `maxMessages` the oldest records go.
 */

export interface ReceiptStatus {
  state: FinalState;
  messageState: number;
  /** First time the deliver_sm went out; null while it waits (delay, or no receiver bound). */
  sentAt: Date | null;
  attempts: number;
  acknowledged: boolean;
  acknowledgedAt: Date | null;
  /** Given up after the configured retries. */
  abandoned: boolean;
}

export interface StoredPart {
  messageId: string;
  sequence: number;
  payload: Buffer;
  receivedAt: Date;
  receipt: ReceiptStatus | null;
  message: StoredMessage;
}

export interface MessageEnvelope {
  systemId: string;
  serviceType: string;
  source: string;
  sourceTon: number;
  sourceNpi: number;
  destination: string;
  destTon: number;
  destNpi: number;
  dataCoding: number;
  esmClass: number;
  registeredDelivery: number;
}

export interface StoredMessage extends MessageEnvelope {
  /** Id of the first part that arrived; every part's id also finds the record. */
  messageId: string;
  total: number;
  /** Indexed by part sequence - 1; holes while parts are missing. */
  parts: (StoredPart | undefined)[];
  received: number;
  receivedAt: Date;
  /** Chosen once per logical message, so every part of it ends the same way. */
  finalState: FinalState | null;
  groupKey: string | null;
  text: string | null;
}

export interface IncomingPart {
  envelope: MessageEnvelope;
  messageId: string;
  payload: Buffer;
  concatenation: ConcatenationInfo | null;
  receivedAt: Date;
}

export interface MessageQuery {
  destination?: string;
  since?: Date;
  limit?: number;
}

export class MessageStore {
  private readonly messages = new Map<string, StoredMessage>();
  private readonly byPartId = new Map<string, StoredMessage>();
  private readonly openGroups = new Map<string, StoredMessage>();

  constructor(private readonly maxMessages: number) {}

  get size(): number {
    return this.messages.size;
  }

  add(incoming: IncomingPart): StoredPart {
    const { concatenation } = incoming;
    const groupKey = concatenation ? concatenationKey(incoming.envelope, concatenation) : null;
    let message = groupKey ? this.openGroups.get(groupKey) : undefined;
    const sequence = concatenation?.sequence ?? 1;
    // The same part number twice means the ESME started over (it retried the whole message).
    if (message && message.parts[sequence - 1]) {
      this.openGroups.delete(message.groupKey as string);
      message = undefined;
    }
    if (!message) message = this.create(incoming, groupKey);
    const part: StoredPart = { messageId: incoming.messageId, sequence, payload: incoming.payload, receivedAt: incoming.receivedAt, receipt: null, message };
    message.parts[sequence - 1] = part;
    message.received++;
    this.byPartId.set(part.messageId, message);
    if (message.received === message.total && groupKey) this.openGroups.delete(groupKey);
    return part;
  }

  get(messageId: string): StoredMessage | undefined {
    return this.byPartId.get(messageId);
  }

  /** Oldest first: the first `limit` that match, and how many match in all. */
  list(query: MessageQuery): { messages: StoredMessage[]; matched: number } {
    const limit = query.limit ?? Number.POSITIVE_INFINITY;
    const messages: StoredMessage[] = [];
    let matched = 0;
    for (const message of this.messages.values()) {
      if (query.destination !== undefined && message.destination !== query.destination) continue;
      if (query.since && message.receivedAt < query.since) continue;
      if (matched++ < limit) messages.push(message);
    }
    return { messages, matched };
  }

  clear(): number {
    const count = this.messages.size;
    this.messages.clear();
    this.byPartId.clear();
    this.openGroups.clear();
    return count;
  }

  private create(incoming: IncomingPart, groupKey: string | null): StoredMessage {
    const e = incoming.envelope;
    // Fields written out: V8 builds `{ ...envelope, more }` on a slow path
    // (docs/adr/0039-batch-acceptance-without-per-item-copies.md).
    const message: StoredMessage = {
      systemId: e.systemId, serviceType: e.serviceType,
      source: e.source, sourceTon: e.sourceTon, sourceNpi: e.sourceNpi,
      destination: e.destination, destTon: e.destTon, destNpi: e.destNpi,
      dataCoding: e.dataCoding, esmClass: e.esmClass, registeredDelivery: e.registeredDelivery,
      messageId: incoming.messageId,
      total: incoming.concatenation?.total ?? 1,
      parts: [],
      received: 0,
      receivedAt: incoming.receivedAt,
      finalState: null,
      groupKey,
      text: null,
    };
    this.messages.set(message.messageId, message);
    if (groupKey) this.openGroups.set(groupKey, message);
    while (this.messages.size > this.maxMessages) this.evictOldest();
    return message;
  }

  private evictOldest(): void {
    const oldest = this.messages.values().next().value as StoredMessage;
    this.messages.delete(oldest.messageId);
    for (const part of oldest.parts) if (part) this.byPartId.delete(part.messageId);
    if (oldest.groupKey && this.openGroups.get(oldest.groupKey) === oldest) this.openGroups.delete(oldest.groupKey);
  }
}

function concatenationKey(envelope: MessageEnvelope, concatenation: ConcatenationInfo): string {
  return [envelope.systemId, envelope.source, envelope.destination, concatenation.reference, concatenation.total].join('\u0000');
}

/** Whole text; decoded from the joined octets so a character split over two parts survives. */
export function messageText(message: StoredMessage): string {
  if (message.text !== null) return message.text;
  const payload = Buffer.concat(message.parts.flatMap((part) => (part ? [part.payload] : [])));
  const text = decodeText(message.dataCoding, payload);
  if (message.received === message.total) message.text = text;
  return text;
}

export interface ReceiptView {
  state: FinalState;
  sentAt: string | null;
  acknowledged: boolean;
}

export interface MessageView extends MessageEnvelope {
  messageId: string;
  messageIds: string[];
  parts: number;
  partsReceived: number;
  complete: boolean;
  text: string;
  receivedAt: string;
  /** Summary over the parts: acknowledged once every part's receipt is. Null if none is due. */
  receipt: ReceiptView | null;
  receipts: (ReceiptView & { messageId: string; messageState: number; attempts: number; acknowledgedAt: string | null; abandoned: boolean })[];
}

export function messageView(message: StoredMessage): MessageView {
  const parts = message.parts.filter((part): part is StoredPart => part !== undefined);
  const receipts = parts.flatMap(({ messageId, receipt }) =>
    receipt
      ? [{ messageId, state: receipt.state, messageState: receipt.messageState, sentAt: receipt.sentAt?.toISOString() ?? null, attempts: receipt.attempts, acknowledged: receipt.acknowledged, acknowledgedAt: receipt.acknowledgedAt?.toISOString() ?? null, abandoned: receipt.abandoned }]
      : [],
  );
  const first = receipts[0];
  const m = message;
  return {
    messageId: m.messageId,
    messageIds: parts.map((part) => part.messageId),
    systemId: m.systemId, serviceType: m.serviceType,
    source: m.source, sourceTon: m.sourceTon, sourceNpi: m.sourceNpi,
    destination: m.destination, destTon: m.destTon, destNpi: m.destNpi,
    dataCoding: m.dataCoding, esmClass: m.esmClass, registeredDelivery: m.registeredDelivery,
    parts: m.total,
    partsReceived: m.received,
    complete: m.received === m.total,
    text: messageText(m),
    receivedAt: m.receivedAt.toISOString(),
    receipt: first
      ? {
          state: first.state,
          sentAt: receipts.reduce<string | null>((earliest, r) => (r.sentAt && (!earliest || r.sentAt < earliest) ? r.sentAt : earliest), null),
          acknowledged: receipts.length === m.total && receipts.every((r) => r.acknowledged),
        }
      : null,
    receipts,
  };
}
