import type { Socket } from 'node:net';
import { pickFinalState } from './delivery-receipts';
import type { InboundChannel } from './inbound-originator';
import { decodePdu, encodePdu } from './smpp-pdu.codec';
import { PduDecodeError, type BindPdu, type BindRespCommand, type Pdu, type ShortMessagePdu } from './smpp-pdu.types';
import { u8Tlv } from './smpp-tlv';
import { CommandStatus, MAX_PDU_LENGTH, PDU_HEADER_LENGTH, SMPP_VERSION_34, TlvTag } from './smpp.constants';
import type { SmscContext } from './smsc-context';
import { admitSubmit } from './submit-admission';
import { submittedPart } from './submitted-part';

/**
 * One SMPP session per connection. A session frames every PDU of a read chunk, answers them, and
 * writes all its answers for that chunk in one socket write. When the ESME stops reading, the
 * session stops reading too.
 */

/** What this SMSC calls itself in bind responses. */
const SMSC_SYSTEM_ID = 'SEEDSMSC';

type BindType = 'transmitter' | 'receiver' | 'transceiver';

export class SmppSession implements InboundChannel {
  systemId = '';
  bindType: BindType | null = null;
  private sequence = 0;
  private unread: Buffer | null = null;
  private outbox: Buffer[] = [];
  private flushQueued = false;
  private readPaused = false;
  /** submit_sm accepted but not answered yet (SMSC_SUBMIT_DELAY_MS): what SMSC_WINDOW bounds. */
  private readonly submitsInProgress = new Set<NodeJS.Timeout>();
  private closing = false;
  private closed = false;
  readonly whenClosed: Promise<void>;
  readonly remote: string;

  constructor(
    private readonly socket: Socket,
    private readonly ctx: SmscContext,
    /** Names the session in the inspection API. */
    readonly id: number,
  ) {
    this.remote = `${socket.remoteAddress ?? '?'}:${socket.remotePort ?? '?'}`;
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
    // Resets and the like: 'close' follows and does the cleaning up.
    socket.on('error', () => undefined);
    this.whenClosed = new Promise((resolve) => socket.once('close', () => resolve(this.onClosed())));
  }

  get isBound(): boolean {
    return this.bindType !== null && !this.closed;
  }

  /** submit_sm held by submitDelayMs right now, awaiting their answer. */
  get heldSubmits(): number {
    return this.submitsInProgress.size;
  }

  get canReceive(): boolean {
    return this.bindType !== null && this.bindType !== 'transmitter' && !this.closing && !this.closed;
  }

  nextSequence(): number {
    this.sequence = this.sequence >= 0x7fffffff ? 1 : this.sequence + 1;
    return this.sequence;
  }

  write(pdu: Buffer): void {
    // After end() the socket takes no more writes; a receipt caught here goes back to the queue on close.
    if (this.closing || this.closed) return;
    this.outbox.push(pdu);
    if (!this.flushQueued) {
      this.flushQueued = true;
      process.nextTick(() => this.flush());
    }
  }

  /** Stopping the simulator: unbind, then close (forcibly if the ESME lingers). */
  shutdown(graceMs: number): Promise<void> {
    if (!this.closed) {
      if (this.bindType) this.write(encodePdu({ command: 'unbind', commandStatus: 0, sequenceNumber: this.nextSequence() }));
      this.endAfterFlush();
      setTimeout(() => this.socket.destroy(), graceMs).unref();
    }
    return this.whenClosed;
  }

  /**
   * `POST /sessions/drop`: the carrier goes away. Answers already written still go out (their
   * messages are stored), submit_sm still held are neither answered nor stored, and the ESME gets
   * a FIN, or a reset if it does not read within `graceMs`. False if the session was already closing.
   */
  sever(graceMs: number): boolean {
    if (this.closing || this.closed) return false;
    this.ctx.receipts.detach(this);
    this.endAfterFlush();
    setTimeout(() => this.socket.destroy(), graceMs).unref();
    return true;
  }

  private receive(chunk: Buffer): void {
    const data = this.unread ? Buffer.concat([this.unread, chunk]) : chunk;
    this.unread = null;
    let offset = 0;
    while (data.length - offset >= 4 && !this.closing) {
      const length = data.readUInt32BE(offset);
      if (length < PDU_HEADER_LENGTH || length > MAX_PDU_LENGTH) {
        // The stream can no longer be framed: say so and hang up.
        const sequence = data.length - offset >= PDU_HEADER_LENGTH ? data.readUInt32BE(offset + 12) : 0;
        this.nack(CommandStatus.ESME_RINVCMDLEN, sequence);
        this.endAfterFlush();
        return;
      }
      if (data.length - offset < length) break;
      try {
        this.handle(data.subarray(offset, offset + length));
      } catch (error) {
        // A bug here must cost one session, not the simulator (and the other sessions with it).
        this.ctx.logger.error({ err: error, systemId: this.systemId, remote: this.remote }, 'session failed; closing it');
        this.drop();
        return;
      }
      offset += length;
    }
    if (offset < data.length && !this.closing) this.unread = data.subarray(offset);
  }

  private handle(bytes: Buffer): void {
    let pdu: Pdu;
    try {
      pdu = decodePdu(bytes);
    } catch (error) {
      if (!(error instanceof PduDecodeError)) throw error;
      this.nack(error.status, bytes.readUInt32BE(12));
      return;
    }
    const header = { commandStatus: 0, sequenceNumber: pdu.sequenceNumber };
    switch (pdu.command) {
      case 'bind_transmitter':
      case 'bind_receiver':
      case 'bind_transceiver':
        return this.bind(pdu);
      case 'submit_sm':
        return this.submit(pdu);
      case 'deliver_sm_resp':
      case 'generic_nack': {
        // A nack of one of our deliver_sm counts as a failed attempt. Sequence numbers are the
        // session's, so a number belongs either to an inbound message or to a receipt.
        const status = pdu.command === 'generic_nack' ? pdu.commandStatus || CommandStatus.ESME_RSYSERR : pdu.commandStatus;
        if (this.ctx.inbound.acknowledge(this, pdu.sequenceNumber, status)) return;
        return this.ctx.receipts.acknowledge(this, pdu.sequenceNumber, status);
      }
      case 'enquire_link':
        this.ctx.counters.enquireLinks++;
        return this.reply({ command: 'enquire_link_resp', ...header });
      case 'unbind':
        this.reply({ command: 'unbind_resp', ...header });
        this.ctx.receipts.detach(this);
        return this.endAfterFlush();
      case 'enquire_link_resp':
      case 'unbind_resp':
      case 'submit_sm_resp':
      case 'bind_transmitter_resp':
      case 'bind_receiver_resp':
      case 'bind_transceiver_resp':
        return; // responses to nothing this side waits for
      case 'deliver_sm': // an SMSC receives no deliver_sm
      case 'unknown':
        return this.nack(CommandStatus.ESME_RINVCMDID, pdu.sequenceNumber);
    }
  }

  private bind(pdu: BindPdu): void {
    const command = `${pdu.command}_resp` as BindRespCommand;
    const refuse = (status: number) => this.reply({ command, commandStatus: status, sequenceNumber: pdu.sequenceNumber, systemId: '', tlvs: [] });
    if (this.bindType) return refuse(CommandStatus.ESME_RALYBND);
    if (this.ctx.faults.refusesBinds()) {
      this.ctx.counters.bindsRefused++;
      this.ctx.logger.debug({ systemId: pdu.systemId, remote: this.remote }, 'bind refused: refuseBinds');
      return refuse(CommandStatus.ESME_RBINDFAIL);
    }
    const config = this.ctx.config.current;
    if (pdu.systemId !== config.systemId || pdu.password !== config.password) {
      this.ctx.counters.bindFailures++;
      this.ctx.logger.warn({ systemId: pdu.systemId, remote: this.remote }, 'bind refused: wrong system_id or password');
      return refuse(CommandStatus.ESME_RBINDFAIL);
    }
    this.bindType = pdu.command.slice('bind_'.length) as BindType;
    this.systemId = pdu.systemId;
    this.ctx.counters.binds++;
    const tlvs = pdu.interfaceVersion >= SMPP_VERSION_34 ? [u8Tlv(TlvTag.sc_interface_version, SMPP_VERSION_34)] : [];
    this.reply({ command, commandStatus: 0, sequenceNumber: pdu.sequenceNumber, systemId: SMSC_SYSTEM_ID, tlvs });
    this.ctx.logger.info({ systemId: this.systemId, bindType: this.bindType, remote: this.remote }, 'esme bound');
    if (this.bindType !== 'transmitter') {
      this.ctx.receipts.attach(this);
      this.ctx.inbound.attach();
    }
  }

  private submit(pdu: ShortMessagePdu): void {
    this.ctx.counters.submits++;
    const admission = admitSubmit(this.ctx, { bindType: this.bindType, systemId: this.systemId, inProgress: this.submitsInProgress.size }, pdu.destinationAddr);
    if (!admission.accept) {
      if ('drop' in admission) return this.drop();
      return this.reply({ command: 'submit_sm_resp', commandStatus: admission.status, sequenceNumber: pdu.sequenceNumber, messageId: '' });
    }
    const receivedAt = new Date();
    const delayMs = this.ctx.config.current.submitDelayMs;
    if (delayMs === 0) return this.accept(pdu, receivedAt);
    const timer = setTimeout(() => {
      this.submitsInProgress.delete(timer);
      this.accept(pdu, receivedAt);
    }, delayMs);
    this.submitsInProgress.add(timer);
  }

  /**
   * Stores the message in the same step that queues its submit_sm_resp, never before: a submit
   * whose session closes while it is held was not accepted as far as the ESME can tell, and tests
   * that compare the stores of two carriers for duplicates rely on that.
   */
  private accept(pdu: ShortMessagePdu, receivedAt: Date): void {
    const { counters, config: { current: config } } = this.ctx;
    counters.accepted++;
    const messageId = this.ctx.ids.generate(config.messageIdFormat);
    // A hung carrier (answerSubmits false) takes the message all the same: the ESME never hears of it.
    if (config.answerSubmits) this.reply({ command: 'submit_sm_resp', commandStatus: CommandStatus.ESME_ROK, sequenceNumber: pdu.sequenceNumber, messageId });
    else counters.storedUnanswered++;
    const part = this.ctx.store.add(submittedPart(pdu, this.systemId, messageId, receivedAt));
    // Bits 0-1 of registered_delivery: 1 = receipt on any outcome, 2 = on failure only.
    const wanted = pdu.registeredDelivery & 0x03;
    if (wanted === 0) return;
    const message = part.message;
    message.finalState ??= pickFinalState(config.finalStates, this.ctx.random);
    if (wanted === 2 && message.finalState === 'DELIVRD') return;
    this.ctx.receipts.schedule(part, message.finalState);
  }

  /** Held submit_sm of a closing session: no answer can reach the ESME any more, so none is stored. */
  private abandonSubmitsInProgress(): void {
    if (this.submitsInProgress.size === 0) return;
    for (const timer of this.submitsInProgress) clearTimeout(timer);
    this.ctx.counters.unanswered += this.submitsInProgress.size;
    this.submitsInProgress.clear();
  }

  private reply(pdu: Pdu): void {
    this.write(encodePdu(pdu));
  }

  private nack(status: number, sequenceNumber: number): void {
    this.ctx.counters.genericNacks++;
    this.reply({ command: 'generic_nack', commandStatus: status, sequenceNumber });
  }

  private flush(): void {
    this.flushQueued = false;
    if (this.closed || this.outbox.length === 0) return;
    const data = this.outbox.length === 1 ? (this.outbox[0] as Buffer) : Buffer.concat(this.outbox);
    this.outbox = [];
    if (!this.socket.write(data) && !this.readPaused) {
      this.readPaused = true;
      this.socket.pause();
      this.socket.once('drain', () => {
        this.readPaused = false;
        this.socket.resume();
      });
    }
  }

  private endAfterFlush(): void {
    this.closing = true;
    this.abandonSubmitsInProgress();
    this.flush();
    this.socket.end();
  }

  /** SMSC_DROP_PROBABILITY: the connection goes, the submit_sm is never answered. */
  private drop(): void {
    this.closing = true;
    this.abandonSubmitsInProgress();
    this.flush();
    this.socket.destroy();
  }

  private onClosed(): void {
    this.closed = true;
    this.abandonSubmitsInProgress();
    this.outbox = [];
    this.ctx.receipts.detach(this);
    // Unanswered inbound deliver_sm are owed to the next session: no answer can come any more.
    this.ctx.inbound.detach(this);
    if (this.bindType) this.ctx.logger.info({ systemId: this.systemId, bindType: this.bindType, remote: this.remote }, 'esme disconnected');
  }
}
