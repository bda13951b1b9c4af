import { Fifo } from './fifo';
import { encodeInboundDeliverSm, type InboundPart } from './inbound-deliver-sm';
import type { InboundChannel, InboundDelivery, InboundRecord, SendReason } from './inbound-record';
import type { SimulatorCounters } from './simulator-stats';
import type { SimulatorConfig } from './simulator.config';

/**
 * The deliver_sm of mobile-originated messages on their way to the ESME, and their answers. A
 * carrier keeps an inbound SMS until the ESME acknowledges it, so a part whose session closes
 * before its deliver_sm_resp, or that gets no answer within `inboundResponseTimeoutMs`, is sent
 * again (same octets, new sequence_number) on the next session able to receive, now or once one
 * binds; a part answered with an error is sent again after INBOUND_RETRY_DELAY_MS. Sends that wait
 * go round robin, at most `window` unanswered per session, redeliveries before bulk messages: they
 * are older, and a bulk run must not hold back what a closed session left owed.
 */

/** An error answer means "not now" (the ESME's store is down, say): try again soon, not at once. */
export const INBOUND_RETRY_DELAY_MS = 1000;
const SWEEP_INTERVAL_MS = 100;

export type InboundSettings = Pick<SimulatorConfig, 'window' | 'inboundResponseTimeoutMs'>;

interface Outstanding {
  record: InboundRecord;
  delivery: InboundDelivery;
  /** The answer is to be ignored (loseFirstResponse): the resend is already scheduled. */
  lose: boolean;
  sentAt: number;
}

/** Sends waiting for a session with room: a whole message (bulk) or one owed part. */
interface QueuedSend {
  record: InboundRecord;
  sends: { part: number; reason: SendReason }[];
}

export class InboundDispatcher {
  // Per session, so that a sequence number answered on another connection never matches.
  private readonly awaiting = new Map<InboundChannel, Map<number, Outstanding>>();
  private owed = new Fifo<QueuedSend>();
  private fresh = new Fifo<QueuedSend>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly sweeper: NodeJS.Timeout;
  private turn = 0;

  constructor(
    private readonly receivers: () => InboundChannel[],
    private readonly config: { readonly current: InboundSettings },
    private readonly counters: Pick<SimulatorCounters, 'inboundSent' | 'inboundRedelivered'>,
    private readonly now: () => number,
  ) {
    this.sweeper = setInterval(() => this.sweep(), SWEEP_INTERVAL_MS);
    this.sweeper.unref();
  }

  /** Messages and owed parts waiting for a session with room. */
  get queuedCount(): number {
    return this.owed.length + this.fresh.length;
  }

  get awaitingCount(): number {
    let count = 0;
    for (const sent of this.awaiting.values()) count += sent.size;
    return count;
  }

  /** The next session able to receive, round robin; null when none is bound. */
  pick(): InboundChannel | null {
    const channels = this.receivers();
    if (channels.length === 0) return null;
    const channel = channels[this.turn % channels.length] as InboundChannel;
    this.turn = (this.turn + 1) % channels.length;
    return channel;
  }

  /** Writes at once, window or not: a single `POST /inbound` goes out in the order and on the session it asked for. */
  sendNow(record: InboundRecord, part: number, reason: SendReason, channel: InboundChannel): void {
    this.write(record, part, reason, channel);
  }

  /** All these sends go to one session once one has room. */
  enqueue(record: InboundRecord, sends: { part: number; reason: SendReason }[]): void {
    this.fresh.push({ record, sends });
    this.pump();
  }

  /** A session bound to receive: what waits can go. */
  attach(): void {
    this.pump();
  }

  /** The session closed or unbound: its unanswered deliver_sm are owed to the next one. */
  detach(channel: InboundChannel): void {
    const sent = this.awaiting.get(channel);
    if (!sent) return;
    this.awaiting.delete(channel);
    for (const entry of sent.values()) this.settle(entry, null);
    this.pump();
  }

  /** A deliver_sm_resp or generic_nack; false when the sequence number is not one of ours (a receipt's, or a late answer). */
  acknowledge(channel: InboundChannel, sequenceNumber: number, status: number): boolean {
    const sent = this.awaiting.get(channel);
    const entry = sent?.get(sequenceNumber);
    if (!sent || !entry) return false;
    sent.delete(sequenceNumber);
    entry.delivery.response = { status, receivedAt: new Date(this.now()), lost: entry.lose };
    this.settle(entry, status);
    this.pump();
    return true;
  }

  /** Forgets what waits and what is scheduled; answers still due are recognised and dropped. */
  clear(): void {
    this.owed = new Fifo();
    this.fresh = new Fifo();
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  stop(): void {
    this.clear();
    clearInterval(this.sweeper);
  }

  private write(record: InboundRecord, partNumber: number, reason: SendReason, channel: InboundChannel): void {
    const part = record.parts[partNumber - 1] as InboundPart;
    const sequenceNumber = channel.nextSequence();
    const delivery: InboundDelivery = {
      part: partNumber, reason, sequenceNumber, sentAt: new Date(this.now()), response: null,
      session: { id: channel.id, systemId: channel.systemId, bindType: channel.bindType, remote: channel.remote },
    };
    const lose = record.request.loseFirstResponse && reason === 'first';
    let sent = this.awaiting.get(channel);
    if (!sent) this.awaiting.set(channel, (sent = new Map()));
    sent.set(sequenceNumber, { record, delivery, lose, sentAt: this.now() });
    const { outstanding } = record.progress;
    if (!lose) outstanding.set(partNumber, (outstanding.get(partNumber) ?? 0) + 1);
    record.deliveries.push(delivery);
    this.counters.inboundSent++;
    if (reason === 'redelivery') this.counters.inboundRedelivered++;
    channel.write(encodeInboundDeliverSm(record.request, record.dataCoding, part, sequenceNumber));
    // The carrier's response timer runs from the send, whether or not an answer comes (it is lost).
    if (lose) this.later(record.request.resendAfterMs, () => this.resend(record, partNumber, channel));
  }

  private resend(record: InboundRecord, part: number, channel: InboundChannel): void {
    if (record.cancelled) return;
    const target = channel.canReceive ? channel : this.pick();
    if (target) return this.write(record, part, 'resend', target);
    record.unsentResends.push({ part, dueAt: new Date(this.now()) });
    this.owe(record, part);
  }

  /** An answer's status, or null for none (the session closed, or the time ran out). */
  private settle({ record, delivery: { part }, lose }: Outstanding, status: number | null): void {
    if (lose) return;
    const { outstanding, acknowledged } = record.progress;
    const left = (outstanding.get(part) ?? 1) - 1;
    if (left > 0) outstanding.set(part, left);
    else outstanding.delete(part);
    if (status === 0) acknowledged.add(part);
    else if (status === null) this.owe(record, part);
    else this.later(INBOUND_RETRY_DELAY_MS, () => this.owe(record, part));
  }

  /** Queues the part once, unless it was acknowledged or another send of it may still be answered. */
  private owe(record: InboundRecord, part: number): void {
    const { acknowledged, queued, outstanding } = record.progress;
    if (record.cancelled || acknowledged.has(part) || queued.has(part) || outstanding.has(part)) return;
    queued.add(part);
    this.owed.push({ record, sends: [{ part, reason: 'redelivery' }] });
  }

  private pump(): void {
    if (this.queuedCount === 0) return;
    const channels = this.receivers();
    const window = this.config.current.window;
    // Stops once every session in turn was full.
    for (let full = 0; this.queuedCount > 0 && full < channels.length; ) {
      const channel = channels[this.turn % channels.length] as InboundChannel;
      this.turn = (this.turn + 1) % channels.length;
      if ((this.awaiting.get(channel)?.size ?? 0) >= window) {
        full++;
        continue;
      }
      full = 0;
      const { record, sends } = (this.owed.shift() ?? this.fresh.shift()) as QueuedSend;
      if (record.cancelled) continue;
      for (const { part, reason } of sends) {
        if (reason === 'redelivery') {
          record.progress.queued.delete(part);
          if (record.progress.acknowledged.has(part) || record.progress.outstanding.has(part)) continue;
        }
        this.write(record, part, reason, channel);
      }
    }
  }

  private later(ms: number, action: () => void): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      action();
      this.pump();
    }, ms);
    timer.unref();
    this.timers.add(timer);
  }

  /** Unanswered past the timeout: owed again (a late answer is then ignored, as by a carrier whose timer ran out). */
  private sweep(): void {
    const deadline = this.now() - this.config.current.inboundResponseTimeoutMs;
    let expired = false;
    for (const [channel, sent] of this.awaiting) {
      // Insertion order is send order: stop at the first one still within its time.
      for (const [sequenceNumber, entry] of sent) {
        if (entry.sentAt > deadline) break;
        sent.delete(sequenceNumber);
        this.settle(entry, null);
        expired = true;
      }
      if (sent.size === 0 && !channel.canReceive) this.awaiting.delete(channel);
    }
    if (expired) this.pump();
  }
}
