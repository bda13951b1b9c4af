import type { ReceiptChannel } from './delivery-receipts';
import { DATA_CODING, buildParts, encodeInboundDeliverSm, type InboundPart } from './inbound-deliver-sm';
import type { InboundRequest } from './inbound-request';
import { defaultEncoding, encodeInboundText, splitEvenly, splitNaturally, InboundTextError, type InboundEncoding } from './inbound-segmentation';

/**
 * Mobile-originated messages that the inspection API asks for: each part goes out as a deliver_sm
 * to a session bound as receiver or transceiver, and its deliver_sm_resp is recorded. With
 * `loseFirstResponse` the first answer of each part counts as lost and the same deliver_sm is
 * sent again once the response timer runs out, as a carrier does, so that the platform's
 * duplicate detection can be tested. Nothing is retried otherwise: what the ESME answered is
 * shown as it was.
 */

/** A session that can take deliver_sm, as the originator sees it. */
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

export type SendReason = 'first' | 'duplicate' | 'resend';

export interface InboundDelivery {
  part: number;
  reason: SendReason;
  sequenceNumber: number;
  session: SessionRef;
  sentAt: Date;
  /** null until the ESME answers; `lost` when loseFirstResponse made the simulator ignore it. */
  response: { status: number; receivedAt: Date; lost: boolean } | null;
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
  /** Resends that found no session able to take them. */
  unsentResends: { part: number; dueAt: Date }[];
}

/** No session is bound to receive: the API answers 409. */
export class NoReceiverError extends Error {
  override readonly name = 'NoReceiverError';
}

interface Awaited {
  delivery: InboundDelivery;
  /** The response to ignore (loseFirstResponse): the resend is already scheduled. */
  lose: boolean;
}

const MAX_RECORDS = 10_000;

export class InboundOriginator {
  private readonly records = new Map<string, InboundRecord>();
  // Per session, so that a sequence number answered on another connection never matches; a
  // closed session's entries go with it.
  private readonly awaiting = new WeakMap<InboundChannel, Map<number, Awaited>>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private nextId = 1;
  private nextReference: number;
  private turn = 0;

  constructor(
    private readonly receivers: () => InboundChannel[],
    private readonly random: () => number,
    private readonly now: () => number = Date.now,
  ) {
    this.nextReference = Math.floor(random() * 0x10000);
  }

  /** Encodes, splits and sends; throws InboundTextError (a text that cannot go as asked) or NoReceiverError. */
  originate(request: InboundRequest): InboundRecord {
    const encoding = request.encoding ?? defaultEncoding(request.text);
    const bytes = encodeInboundText(request.text, encoding);
    const payloads =
      request.parts === null ? splitNaturally(bytes, encoding, request.concatenation) : splitEvenly(bytes, encoding, request.concatenation, request.parts);
    if (request.duplicate !== null && request.duplicate > payloads.length) {
      throw new InboundTextError(`duplicate names part ${request.duplicate}; the message has ${payloads.length}`);
    }
    if (this.receivers().length === 0) throw new NoReceiverError('no session is bound as receiver or transceiver');

    const reference = payloads.length === 1 ? null : (request.reference ?? this.takeReference(request));
    const record: InboundRecord = {
      id: `mo-${this.nextId++}`,
      createdAt: new Date(this.now()),
      request,
      encoding,
      dataCoding: DATA_CODING[encoding],
      parts: buildParts(payloads, request.concatenation, reference ?? 0),
      reference,
      deliveries: [],
      unsentResends: [],
    };
    this.keep(record);
    const single = request.spreadParts ? null : this.pickChannel();
    for (const { part, reason } of this.sendingOrder(record)) this.send(record, part, reason, single ?? this.pickChannel());
    return record;
  }

  /** A deliver_sm_resp or generic_nack; false when the sequence number is not one of ours (a receipt's). */
  acknowledge(channel: InboundChannel, sequenceNumber: number, status: number): boolean {
    const awaiting = this.awaiting.get(channel);
    const entry = awaiting?.get(sequenceNumber);
    if (!awaiting || !entry) return false;
    awaiting.delete(sequenceNumber);
    entry.delivery.response = { status, receivedAt: new Date(this.now()), lost: entry.lose };
    return true;
  }

  get(id: string): InboundRecord | undefined {
    return this.records.get(id);
  }

  list(): InboundRecord[] {
    return [...this.records.values()];
  }

  /** Forgets the records and cancels pending resends; answers still due are recognised and dropped. */
  clear(): number {
    const count = this.records.size;
    this.records.clear();
    this.stop();
    return count;
  }

  stop(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  private keep(record: InboundRecord): void {
    this.records.set(record.id, record);
    if (this.records.size > MAX_RECORDS) this.records.delete(this.records.keys().next().value as string);
  }

  private takeReference(request: InboundRequest): number {
    const reference = this.nextReference;
    this.nextReference = (this.nextReference + 1) & 0xffff;
    return request.concatenation === 'udh8' ? reference & 0xff : reference;
  }

  private sendingOrder(record: InboundRecord): { part: number; reason: SendReason }[] {
    const numbers = record.parts.map((p) => p.number);
    if (record.request.order === 'reverse') numbers.reverse();
    if (record.request.order === 'shuffle') {
      for (let i = numbers.length - 1; i > 0; i--) {
        const j = Math.floor(this.random() * (i + 1));
        [numbers[i], numbers[j]] = [numbers[j] as number, numbers[i] as number];
      }
    }
    return numbers.flatMap((part) => {
      const first = { part, reason: 'first' as const };
      return part === record.request.duplicate ? [first, { part, reason: 'duplicate' as const }] : [first];
    });
  }

  private pickChannel(): InboundChannel | null {
    const channels = this.receivers();
    if (channels.length === 0) return null;
    const channel = channels[this.turn % channels.length] as InboundChannel;
    this.turn = (this.turn + 1) % channels.length;
    return channel;
  }

  private send(record: InboundRecord, partNumber: number, reason: SendReason, channel: InboundChannel | null): void {
    const part = record.parts[partNumber - 1] as InboundPart;
    if (!channel) {
      record.unsentResends.push({ part: partNumber, dueAt: new Date(this.now()) });
      return;
    }
    const sequenceNumber = channel.nextSequence();
    const delivery: InboundDelivery = {
      part: partNumber, reason, sequenceNumber, sentAt: new Date(this.now()), response: null,
      session: { id: channel.id, systemId: channel.systemId, bindType: channel.bindType, remote: channel.remote },
    };
    const lose = record.request.loseFirstResponse && reason === 'first';
    let awaiting = this.awaiting.get(channel);
    if (!awaiting) this.awaiting.set(channel, (awaiting = new Map()));
    awaiting.set(sequenceNumber, { delivery, lose });
    record.deliveries.push(delivery);
    channel.write(encodeInboundDeliverSm(record.request, record.dataCoding, part, sequenceNumber));
    if (lose) this.scheduleResend(record, partNumber, channel);
  }

  /** The carrier's response timer runs from the send, whether or not an answer came (it was lost). */
  private scheduleResend(record: InboundRecord, partNumber: number, channel: InboundChannel): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (!this.records.has(record.id)) return;
      this.send(record, partNumber, 'resend', channel.canReceive ? channel : this.pickChannel());
    }, record.request.resendAfterMs);
    timer.unref();
    this.timers.add(timer);
  }
}
