import { DATA_CODING, buildParts } from './inbound-deliver-sm';
import { InboundDispatcher, type InboundSettings } from './inbound-dispatcher';
import type { InboundChannel, InboundRecord, SendReason } from './inbound-record';
import type { InboundRequest } from './inbound-request';
import { defaultEncoding, encodeInboundText, splitEvenly, splitNaturally, InboundTextError } from './inbound-segmentation';
import type { SimulatorCounters } from './simulator-stats';

export type { InboundChannel, InboundDelivery, InboundRecord, SendReason, SessionRef } from './inbound-record';

/**
 * Mobile-originated messages that the inspection API asks for: each part goes out as a deliver_sm
 * to a session bound as receiver or transceiver, and its deliver_sm_resp is recorded. A single
 * message goes out at once, in the order asked; a bulk request (`count`) waits for room in the
 * sessions' windows. What the ESME does not acknowledge is sent again (inbound-dispatcher.ts). With
 * `loseFirstResponse` the first answer of each part counts as lost and the same deliver_sm is sent
 * again once the response timer runs out, as a carrier does, so that the platform's duplicate
 * detection can be tested.
 */

/** No session is bound to receive: the API answers 409. */
export class NoReceiverError extends Error {
  override readonly name = 'NoReceiverError';
}

const MAX_RECORDS = 10_000;

export class InboundOriginator {
  private readonly records = new Map<string, InboundRecord>();
  private readonly dispatcher: InboundDispatcher;
  private nextId = 1;
  private nextReference: number;

  constructor(
    private readonly receivers: () => InboundChannel[],
    config: { readonly current: InboundSettings },
    counters: Pick<SimulatorCounters, 'inboundSent' | 'inboundRedelivered'>,
    private readonly random: () => number,
    private readonly now: () => number = Date.now,
  ) {
    this.nextReference = Math.floor(random() * 0x10000);
    this.dispatcher = new InboundDispatcher(receivers, config, counters, now);
  }

  get queuedCount(): number {
    return this.dispatcher.queuedCount;
  }

  get awaitingCount(): number {
    return this.dispatcher.awaitingCount;
  }

  /** Encodes, splits and sends; throws InboundTextError (a text that cannot go as asked) or NoReceiverError. */
  originate(request: InboundRequest): InboundRecord {
    const record = this.prepare(request);
    if (this.receivers().length === 0) throw new NoReceiverError('no session is bound as receiver or transceiver');
    this.keep(record);
    const single = request.spreadParts ? null : this.dispatcher.pick();
    for (const { part, reason } of this.sendingOrder(record)) {
      this.dispatcher.sendNow(record, part, reason, single ?? (this.dispatcher.pick() as InboundChannel));
    }
    return record;
  }

  /**
   * `count` messages, `{i}` in the text numbered 1 to count, queued for the sessions' windows.
   * Every text is checked before anything is queued, so that a 400 sends nothing.
   */
  originateMany(request: InboundRequest, count: number): InboundRecord[] {
    const records = Array.from({ length: count }, (_, i) => this.prepare({ ...request, text: request.text.replaceAll('{i}', String(i + 1)) }));
    if (this.receivers().length === 0) throw new NoReceiverError('no session is bound as receiver or transceiver');
    for (const record of records) {
      this.keep(record);
      const sends = this.sendingOrder(record);
      // spreadParts: each part may go to another session, so each waits on its own.
      if (request.spreadParts) sends.forEach((send) => this.dispatcher.enqueue(record, [send]));
      else this.dispatcher.enqueue(record, sends);
    }
    return records;
  }

  /** A deliver_sm_resp or generic_nack; false when the sequence number is not one of ours (a receipt's). */
  acknowledge(channel: InboundChannel, sequenceNumber: number, status: number): boolean {
    return this.dispatcher.acknowledge(channel, sequenceNumber, status);
  }

  /** A session bound as receiver or transceiver: messages and parts that waited for one go now. */
  attach(): void {
    this.dispatcher.attach();
  }

  /** A session unbound or closed: what it left unanswered is owed to the next one. */
  detach(channel: InboundChannel): void {
    this.dispatcher.detach(channel);
  }

  get(id: string): InboundRecord | undefined {
    return this.records.get(id);
  }

  list(): InboundRecord[] {
    return [...this.records.values()];
  }

  /** Forgets the records and cancels whatever waits or is scheduled; answers still due are recognised and dropped. */
  clear(): number {
    const count = this.records.size;
    for (const record of this.records.values()) record.cancelled = true;
    this.records.clear();
    this.dispatcher.clear();
    return count;
  }

  stop(): void {
    this.dispatcher.stop();
  }

  private prepare(request: InboundRequest): InboundRecord {
    const encoding = request.encoding ?? defaultEncoding(request.text);
    const bytes = encodeInboundText(request.text, encoding);
    const payloads =
      request.parts === null ? splitNaturally(bytes, encoding, request.concatenation) : splitEvenly(bytes, encoding, request.concatenation, request.parts);
    if (request.duplicate !== null && request.duplicate > payloads.length) {
      throw new InboundTextError(`duplicate names part ${request.duplicate}; the message has ${payloads.length}`);
    }
    const reference = payloads.length === 1 ? null : (request.reference ?? this.takeReference(request));
    return {
      id: '',
      createdAt: new Date(this.now()),
      request,
      encoding,
      dataCoding: DATA_CODING[encoding],
      parts: buildParts(payloads, request.concatenation, reference ?? 0),
      reference,
      deliveries: [],
      unsentResends: [],
      progress: { acknowledged: new Set(), queued: new Set(), outstanding: new Map() },
      cancelled: false,
    };
  }

  /** Numbers the record as it is kept, so that ids follow sending order and a refused request takes none. */
  private keep(record: InboundRecord): void {
    record.id = `mo-${this.nextId++}`;
    this.records.set(record.id, record);
    // Only the view forgets the oldest: a message still owed to the ESME is sent all the same.
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
}
