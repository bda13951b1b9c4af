import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import type { Logger } from '@seed/platform-logging';
import { readUserData } from './concatenation';
import { pickFinalState, type ReceiptChannel, type ReceiptDispatcher } from './delivery-receipts';
import type { MessageIdGenerator } from './message-ids';
import type { MessageStore } from './message-store';
import { PduDecodeError, decodePdu, encodePdu, u8Tlv, type BindPdu, type BindRespCommand, type Pdu, type ShortMessagePdu } from './smpp-pdu.codec';
import { CommandStatus, MAX_PDU_LENGTH, PDU_HEADER_LENGTH, SMPP_VERSION_34, TlvTag } from './smpp.constants';
import type { SimulatorCounters } from './simulator-stats';
import type { SimulatorConfig } from './simulator.config';
import type { Throttle } from './throttle';

/**
 * The SMPP side: a TCP listener and one session per connection. A session frames every PDU of a
 * read chunk, answers them, and writes all its answers for that chunk in one socket write. When
 * the ESME stops reading, the session stops reading too.
 */

export interface SmscContext {
  config: { readonly current: SimulatorConfig };
  store: MessageStore;
  receipts: ReceiptDispatcher;
  counters: SimulatorCounters;
  ids: MessageIdGenerator;
  throttle: Throttle;
  random: () => number;
  logger: Logger;
}

/** What this SMSC calls itself in bind responses. */
const SMSC_SYSTEM_ID = 'SEEDSMSC';

type BindType = 'transmitter' | 'receiver' | 'transceiver';

class SmppSession implements ReceiptChannel {
  systemId = '';
  bindType: BindType | null = null;
  private sequence = 0;
  private unread: Buffer | null = null;
  private outbox: Buffer[] = [];
  private flushQueued = false;
  private readPaused = false;
  /** submit_sm accepted but not answered yet (SMSC_SUBMIT_DELAY_MS): what SMSC_WINDOW bounds. */
  private submitsInProgress = 0;
  private closing = false;
  private closed = false;
  readonly whenClosed: Promise<void>;
  private readonly remote: string;

  constructor(
    private readonly socket: Socket,
    private readonly ctx: SmscContext,
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

  nextSequence(): number {
    this.sequence = this.sequence >= 0x7fffffff ? 1 : this.sequence + 1;
    return this.sequence;
  }

  write(pdu: Buffer): void {
    if (this.closed) return;
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
        return this.ctx.receipts.acknowledge(this, pdu.sequenceNumber, pdu.commandStatus);
      case 'generic_nack':
        // A nack of one of our receipts counts as a failed attempt.
        return this.ctx.receipts.acknowledge(this, pdu.sequenceNumber, pdu.commandStatus || CommandStatus.ESME_RSYSERR);
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
    if (this.bindType !== 'transmitter') this.ctx.receipts.attach(this);
  }

  private submit(pdu: ShortMessagePdu): void {
    const { counters, config: { current: config } } = this.ctx;
    counters.submits++;
    const answer = (commandStatus: number, messageId = '') =>
      this.reply({ command: 'submit_sm_resp', commandStatus, sequenceNumber: pdu.sequenceNumber, messageId });
    if (this.bindType !== 'transmitter' && this.bindType !== 'transceiver') {
      counters.rejected++;
      return answer(CommandStatus.ESME_RINVBNDSTS);
    }
    if (config.dropProbability > 0 && this.ctx.random() < config.dropProbability) {
      counters.dropped++;
      return this.drop();
    }
    if (this.submitsInProgress >= config.window) {
      counters.windowFull++;
      return answer(CommandStatus.ESME_RMSGQFUL);
    }
    if (!this.ctx.throttle.tryTake(this.systemId, config.throttlePerSecond, Date.now())) {
      counters.throttled++;
      return answer(CommandStatus.ESME_RTHROTTLED);
    }
    if (!acceptsDestination(pdu.destinationAddr, config.rejectPrefixes)) {
      counters.rejected++;
      return answer(CommandStatus.ESME_RINVDSTADR);
    }
    counters.accepted++;
    const messageId = this.ctx.ids.generate(config.messageIdFormat);
    const userData = readUserData(pdu.esmClass, pdu.shortMessage, pdu.tlvs);
    const part = this.ctx.store.add({
      envelope: {
        systemId: this.systemId, serviceType: pdu.serviceType,
        source: pdu.sourceAddr, sourceTon: pdu.sourceAddrTon, sourceNpi: pdu.sourceAddrNpi,
        destination: pdu.destinationAddr, destTon: pdu.destAddrTon, destNpi: pdu.destAddrNpi,
        dataCoding: pdu.dataCoding, esmClass: pdu.esmClass, registeredDelivery: pdu.registeredDelivery,
      },
      messageId,
      payload: userData.payload,
      concatenation: userData.concatenation,
      receivedAt: new Date(),
    });
    const complete = () => {
      answer(CommandStatus.ESME_ROK, messageId);
      // Bits 0-1 of registered_delivery: 1 = receipt on any outcome, 2 = on failure only.
      const wanted = pdu.registeredDelivery & 0x03;
      if (wanted === 0) return;
      const message = part.message;
      message.finalState ??= pickFinalState(this.ctx.config.current.finalStates, this.ctx.random);
      if (wanted === 2 && message.finalState === 'DELIVRD') return;
      this.ctx.receipts.schedule(part, message.finalState);
    };
    if (config.submitDelayMs === 0) return complete();
    this.submitsInProgress++;
    setTimeout(() => {
      this.submitsInProgress--;
      complete();
    }, config.submitDelayMs);
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
    this.flush();
    this.socket.end();
  }

  /** SMSC_DROP_PROBABILITY: the connection goes, the submit_sm is never answered. */
  private drop(): void {
    this.closing = true;
    this.flush();
    this.socket.destroy();
  }

  private onClosed(): void {
    this.closed = true;
    this.outbox = [];
    this.ctx.receipts.detach(this);
    if (this.bindType) this.ctx.logger.info({ systemId: this.systemId, bindType: this.bindType, remote: this.remote }, 'esme disconnected');
  }
}

/** A prefix matches with or without a leading + on the destination. */
function acceptsDestination(destination: string, rejectPrefixes: readonly string[]): boolean {
  const digits = destination.startsWith('+') ? destination.slice(1) : destination;
  if (digits === '') return false;
  return !rejectPrefixes.some((prefix) => digits.startsWith(prefix));
}

export class SmscServer {
  private readonly sessions = new Set<SmppSession>();
  private readonly server: Server;

  constructor(ctx: SmscContext) {
    this.server = createServer((socket) => {
      const session = new SmppSession(socket, ctx);
      this.sessions.add(session);
      void session.whenClosed.then(() => this.sessions.delete(session));
    });
  }

  get sessionCount(): number {
    return this.sessions.size;
  }

  get boundSessionCount(): number {
    let count = 0;
    for (const session of this.sessions) if (session.isBound) count++;
    return count;
  }

  listen(host: string, port: number): Promise<number> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        this.server.off('error', reject);
        resolve((this.server.address() as AddressInfo).port);
      });
    });
  }

  async close(graceMs = 1000): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    await Promise.all([...this.sessions].map((session) => session.shutdown(graceMs)));
    await closed;
  }
}
