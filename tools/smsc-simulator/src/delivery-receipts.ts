import { Fifo } from './fifo';
import type { StoredPart } from './message-store';
import { encodePdu } from './smpp-pdu.codec';
import { cStringTlv, u8Tlv } from './smpp-tlv';
import { DataCoding, EsmClass, TlvTag } from './smpp.constants';
import type { SimulatorCounters } from './simulator-stats';
import type { FinalState, FinalStateWeight, SimulatorConfig } from './simulator.config';
import { decodeText, encodeGsm7 } from './sms-text.codec';

/**
 * Delivery receipts: the text and TLVs of the deliver_sm, and their delivery to the ESME. Each
 * receipt waits for its delay, then queues per system_id until a receiver or transceiver of that
 * system_id has room in its window; one not acknowledged in time is sent again (up to the
 * configured retries), and those in flight on a connection that closes go back to the queue.
 */

/** message_state TLV values (SMPP 3.4, 5.2.28). */
export const MESSAGE_STATE: Readonly<Record<FinalState, number>> = {
  DELIVRD: 2, EXPIRED: 3, DELETED: 4, UNDELIV: 5, ACCEPTD: 6, UNKNOWN: 7, REJECTD: 8,
};

// The `err:` field is network specific; these stand-ins only need to be stable and non-zero on failure.
const ERROR_CODE: Readonly<Record<FinalState, string>> = {
  DELIVRD: '000', ACCEPTD: '000', EXPIRED: '001', DELETED: '002', UNDELIV: '003', UNKNOWN: '004', REJECTD: '005',
};

export function pickFinalState(weights: readonly FinalStateWeight[], random: () => number): FinalState {
  const total = weights.reduce((sum, w) => sum + w.weight, 0);
  let point = random() * total;
  let last: FinalState = 'DELIVRD';
  for (const { state, weight } of weights) {
    if (point < weight) return state;
    point -= weight;
    if (weight > 0) last = state;
  }
  return last; // rounding left the point just past the end
}

/** YYMMDDhhmm in UTC. */
export function receiptDate(date: Date): string {
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(date.getUTCFullYear() % 100)}${two(date.getUTCMonth() + 1)}${two(date.getUTCDate())}${two(date.getUTCHours())}${two(date.getUTCMinutes())}`;
}

export interface ReceiptTextFields {
  messageId: string;
  state: FinalState;
  submittedAt: Date;
  doneAt: Date;
  text: string;
}

/** The de-facto format of SMPP 3.4 appendix B. */
export function receiptText({ messageId, state, submittedAt, doneAt, text }: ReceiptTextFields): string {
  const delivered = state === 'DELIVRD' ? '001' : '000';
  return (
    `id:${messageId} sub:001 dlvrd:${delivered} submit date:${receiptDate(submittedAt)} ` +
    `done date:${receiptDate(doneAt)} stat:${state} err:${ERROR_CODE[state]} text:${Array.from(text).slice(0, 20).join('')}`
  );
}

/** deliver_sm for one part, addresses swapped; its sequence number is set when sent. */
export function encodeReceipt(part: StoredPart, state: FinalState, doneAt: Date): Buffer {
  const m = part.message;
  const text = receiptText({ messageId: part.messageId, state, submittedAt: part.receivedAt, doneAt, text: decodeText(m.dataCoding, part.payload) });
  return encodePdu({
    command: 'deliver_sm', commandStatus: 0, sequenceNumber: 0,
    serviceType: '', sourceAddrTon: m.destTon, sourceAddrNpi: m.destNpi, sourceAddr: m.destination,
    destAddrTon: m.sourceTon, destAddrNpi: m.sourceNpi, destinationAddr: m.source,
    esmClass: EsmClass.deliveryReceipt, protocolId: 0, priorityFlag: 0, scheduleDeliveryTime: '', validityPeriod: '',
    registeredDelivery: 0, replaceIfPresentFlag: 0, dataCoding: DataCoding.gsm7, smDefaultMsgId: 0,
    shortMessage: encodeGsm7(text),
    tlvs: [cStringTlv(TlvTag.receipted_message_id, part.messageId), u8Tlv(TlvTag.message_state, MESSAGE_STATE[state])],
  });
}

/** A bound receiver or transceiver session, as the dispatcher sees it. */
export interface ReceiptChannel {
  readonly systemId: string;
  nextSequence(): number;
  write(pdu: Buffer): void;
}

interface PendingReceipt {
  part: StoredPart;
  systemId: string;
  state: FinalState;
  dueAt: number;
  /** Timeouts and error responses so far; reconnects do not count. */
  failures: number;
}

interface InFlight {
  receipt: PendingReceipt;
  sentAt: number;
}

const SWEEP_INTERVAL_MS = 100;

export class ReceiptDispatcher {
  // Delays are equal for all receipts, so arrival order is due order: a FIFO and one timer.
  // (Right after the delay is shortened at run time, new receipts wait for the older ones.)
  private readonly delayed = new Fifo<PendingReceipt>();
  private delayTimer: NodeJS.Timeout | null = null;
  private readonly queues = new Map<string, Fifo<PendingReceipt>>();
  private readonly channels = new Map<string, ReceiptChannel[]>();
  private readonly inFlight = new Map<ReceiptChannel, Map<number, InFlight>>();
  private readonly sweeper: NodeJS.Timeout;
  private turn = 0;

  constructor(
    private readonly config: { readonly current: SimulatorConfig },
    private readonly counters: SimulatorCounters,
    private readonly now: () => number = Date.now,
  ) {
    this.sweeper = setInterval(() => this.sweep(), SWEEP_INTERVAL_MS);
    this.sweeper.unref();
  }

  get queuedCount(): number {
    let count = this.delayed.length;
    for (const queue of this.queues.values()) count += queue.length;
    return count;
  }

  get inFlightCount(): number {
    let count = 0;
    for (const sent of this.inFlight.values()) count += sent.size;
    return count;
  }

  schedule(part: StoredPart, state: FinalState): void {
    part.receipt = { state, messageState: MESSAGE_STATE[state], sentAt: null, attempts: 0, acknowledged: false, acknowledgedAt: null, abandoned: false };
    this.delayed.push({ part, systemId: part.message.systemId, state, dueAt: this.now() + this.config.current.receiptDelayMs, failures: 0 });
    if (!this.delayTimer) this.armDelayTimer();
  }

  attach(channel: ReceiptChannel): void {
    const list = this.channels.get(channel.systemId) ?? [];
    list.push(channel);
    this.channels.set(channel.systemId, list);
    this.inFlight.set(channel, new Map());
    this.pump(channel.systemId);
  }

  /** The session closed or unbound: whatever it had in flight is owed to the next one. */
  detach(channel: ReceiptChannel): void {
    const sent = this.inFlight.get(channel);
    if (!sent) return;
    this.inFlight.delete(channel);
    const list = (this.channels.get(channel.systemId) ?? []).filter((c) => c !== channel);
    if (list.length > 0) this.channels.set(channel.systemId, list);
    else this.channels.delete(channel.systemId);
    this.queueFor(channel.systemId).unshiftAll([...sent.values()].map((f) => f.receipt));
    this.pump(channel.systemId);
  }

  acknowledge(channel: ReceiptChannel, sequenceNumber: number, status: number): void {
    const sent = this.inFlight.get(channel);
    const flight = sent?.get(sequenceNumber);
    if (!sent || !flight) return; // late answer to a receipt already sent again
    sent.delete(sequenceNumber);
    const receipt = flight.receipt.part.receipt;
    if (status === 0 && receipt) {
      receipt.acknowledged = true;
      receipt.acknowledgedAt = new Date(this.now());
      this.counters.receiptsAcked++;
    } else {
      this.retryOrAbandon(flight.receipt);
    }
    this.pump(channel.systemId);
  }

  stop(): void {
    clearInterval(this.sweeper);
    if (this.delayTimer) clearTimeout(this.delayTimer);
    this.delayTimer = null;
  }

  private armDelayTimer(): void {
    const head = this.delayed.peek();
    if (!head) return;
    this.delayTimer = setTimeout(() => this.releaseDue(), Math.max(0, head.dueAt - this.now()));
  }

  private releaseDue(): void {
    this.delayTimer = null;
    const now = this.now();
    const touched = new Set<string>();
    for (let head = this.delayed.peek(); head && head.dueAt <= now; head = this.delayed.peek()) {
      this.delayed.shift();
      this.queueFor(head.systemId).push(head);
      touched.add(head.systemId);
    }
    for (const systemId of touched) this.pump(systemId);
    this.armDelayTimer();
  }

  private queueFor(systemId: string): Fifo<PendingReceipt> {
    let queue = this.queues.get(systemId);
    if (!queue) this.queues.set(systemId, (queue = new Fifo()));
    return queue;
  }

  /** Sends what fits in the windows of the system_id's sessions, round robin. */
  private pump(systemId: string): void {
    const queue = this.queues.get(systemId);
    const channels = this.channels.get(systemId);
    if (!queue || queue.length === 0 || !channels) return;
    const window = this.config.current.window;
    let full = 0;
    let i = this.turn;
    for (; queue.length > 0 && full < channels.length; i++) {
      const channel = channels[i % channels.length] as ReceiptChannel;
      const sent = this.inFlight.get(channel) as Map<number, InFlight>;
      if (sent.size >= window) {
        full++;
        continue;
      }
      full = 0;
      this.send(channel, sent, queue.shift() as PendingReceipt);
    }
    this.turn = i % channels.length;
  }

  private send(channel: ReceiptChannel, sent: Map<number, InFlight>, pending: PendingReceipt): void {
    const receipt = pending.part.receipt;
    if (!receipt) return;
    const now = this.now();
    const pdu = encodeReceipt(pending.part, pending.state, new Date(pending.dueAt));
    const sequenceNumber = channel.nextSequence();
    pdu.writeUInt32BE(sequenceNumber, 12);
    sent.set(sequenceNumber, { receipt: pending, sentAt: now });
    if (receipt.attempts++ === 0) {
      receipt.sentAt = new Date(now);
      this.counters.receiptsSent++;
    } else {
      this.counters.receiptsResent++;
    }
    channel.write(pdu);
  }

  private retryOrAbandon(pending: PendingReceipt): void {
    pending.failures++;
    if (pending.failures > this.config.current.receiptRetries) {
      if (pending.part.receipt) pending.part.receipt.abandoned = true;
      this.counters.receiptsAbandoned++;
    } else {
      this.queueFor(pending.systemId).push(pending);
    }
  }

  private sweep(): void {
    const deadline = this.now() - this.config.current.receiptAckTimeoutMs;
    for (const [channel, sent] of this.inFlight) {
      let expired = 0;
      // Insertion order is send order: stop at the first one still within its time.
      for (const [sequenceNumber, flight] of sent) {
        if (flight.sentAt > deadline) break;
        sent.delete(sequenceNumber);
        this.retryOrAbandon(flight.receipt);
        expired++;
      }
      if (expired > 0) this.pump(channel.systemId);
    }
  }
}
