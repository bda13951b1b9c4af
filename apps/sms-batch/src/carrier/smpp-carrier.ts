import * as smpp from 'smpp';
import type { Logger } from 'pino';
import { ConcurrencyError, isTransientDatabaseError } from '@seed/platform-event-store';
import type { SubmitSmPart } from '@seed/sms-batch-domain';
import { receiptAckSeconds, submitObserver } from './carrier.metrics';
import { parseSmppUrl, redactSmppUrl, type SmppEndpoint } from './smpp-url';
import { NO_RESPONSE_STATUS, NOT_BOUND, NOT_SENT, type SubmitOutcome } from './submit-outcome';

/** SMPP command_status values the sender treats as "try again later"; any other is final. */
const TEMPORARY_STATUSES = new Set([
  0x08, // ESME_RSYSERR
  0x14, // ESME_RMSGQFUL
  0x58, // ESME_RTHROTTLED
  0x64, // ESME_RX_T_APPN
]);

const DELIVER_SM = 0x00000005;
const DATA_SM = 0x00000103;
/** Message length is invalid: a request whose body cannot be decoded. */
const ESME_RINVMSGLEN = 0x01;
/** "ESME receiver temporary app error": not recorded now, deliver it again later. */
const ESME_RX_T_APPN = 0x64;
/** "ESME receiver reject message error": never deliverable here; the carrier stops offering it. */
const ESME_RX_R_APPN = 0x65;

/** A deliver_sm (or data_sm) as the receipt parser needs it, and its fields as the library parsed them (inbound SMS). */
export interface IncomingDeliverSm {
  esmClass: number;
  shortMessage: string;
  receiptedMessageId: string | null;
  messageState: number | null;
  fields: Readonly<Record<string, unknown>>;
}

export interface SmppCarrierSettings {
  /** The carrier's id, for metrics and logs. */
  carrierId: string;
  url: string;
  /** Most submit_sm awaiting their response at once. */
  window: number;
  enquireLinkMs: number;
  responseTimeoutMs: number;
  reconnectMaxMs: number;
  /** bind's system_type, when the carrier asks for one. */
  systemType?: string | null;
}

/**
 * One transceiver session to the carrier, kept bound: reconnects with exponential backoff,
 * enquire_link on a timer, a window of outstanding submits. deliver_sm answers only after the
 * receipt handler has recorded the receipt, so a crash makes the carrier send it again.
 */
export class SmppCarrier {
  private readonly endpoint: SmppEndpoint;
  private session: smpp.Session | undefined;
  private bound = false;
  private stopping = false;
  private reconnectDelay = 250;
  private outstanding = 0;
  private readonly slotWaiters: (() => void)[] = [];
  private readonly inFlight = new Map<number, (outcome: SubmitOutcome) => void>();
  private reconnectTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly settings: SmppCarrierSettings,
    private readonly logger: Logger,
    private readonly onDeliverSm: (pdu: IncomingDeliverSm) => Promise<void>,
    /** Told each time the session binds, so that a sender waiting for a carrier starts at once. */
    private readonly onBound: () => void = () => undefined,
  ) {
    this.endpoint = parseSmppUrl(settings.url);
  }

  start(): void {
    this.stopping = false;
    this.connect();
  }

  isBound(): boolean {
    return this.bound;
  }

  /** Submits on the wire or waiting for a window slot. */
  load(): number {
    return this.outstanding + this.slotWaiters.length;
  }

  /** Submits on the wire awaiting their response, and the most there may be. */
  window(): { inUse: number; size: number } {
    return { inUse: this.outstanding, size: this.settings.window };
  }

  /** `mayStillSend` is asked again once a window slot is free: the caller may have given up meanwhile. */
  async submit(part: SubmitSmPart, mayStillSend: () => boolean = () => true): Promise<SubmitOutcome> {
    await this.takeSlot();
    try {
      if (!mayStillSend()) return NOT_SENT;
      const session = this.session;
      if (!session || !this.bound) return NOT_BOUND;
      return await new Promise<SubmitOutcome>((resolve) => {
        const timer = setTimeout(() => {
          resolve({ ok: false, temporary: true, status: NO_RESPONSE_STATUS, detail: 'no submit_sm_resp in time' });
          session.destroy(); // a carrier that stopped answering is reconnected
        }, this.settings.responseTimeoutMs);
        const observed = submitObserver(this.settings.carrierId);
        const done = (outcome: SubmitOutcome) => {
          observed(outcome);
          clearTimeout(timer);
          this.inFlight.delete(id);
          resolve(outcome);
        };
        const id = nextInFlightId++;
        this.inFlight.set(id, done);
        corkForThisTick(session);
        session.submit_sm(
          {
            source_addr: part.sourceAddr,
            source_addr_ton: part.sourceAddrTon,
            source_addr_npi: part.sourceAddrNpi,
            destination_addr: part.destinationAddr,
            dest_addr_ton: part.destAddrTon,
            dest_addr_npi: part.destAddrNpi,
            esm_class: part.esmClass,
            data_coding: part.dataCoding,
            registered_delivery: part.registeredDelivery,
            short_message: Buffer.from(part.shortMessage),
          },
          (resp) => {
            const status = resp.command_status;
            if (status === 0) done({ ok: true, messageId: String(resp['message_id'] ?? '') });
            else done({ ok: false, temporary: TEMPORARY_STATUSES.has(status), status, detail: `submit_sm refused: 0x${hex(status)}` });
          },
        );
      });
    } finally {
      this.releaseSlot();
    }
  }

  /**
   * Lets outstanding submits finish (up to `graceMs`, the response timeout by default), unbinds and
   * closes. A session whose bind lease may have lapsed is closed with no grace.
   */
  async stop(graceMs = this.settings.responseTimeoutMs): Promise<void> {
    this.stopping = true;
    clearTimeout(this.reconnectTimer);
    const deadline = Date.now() + graceMs;
    while (this.outstanding > 0 && Date.now() < deadline) await sleep(20);
    const session = this.session;
    // No session, or its connection already closed (a reconnect was waiting): nothing to close.
    if (!session) return;
    const closed = new Promise<void>((resolve) => session.once('close', () => resolve()));
    // Unbind politely when bound; either way the socket is closed within two seconds.
    if (this.bound) session.unbind({}, () => session.close());
    else session.destroy();
    const forced = setTimeout(() => session.destroy(), 2000);
    await closed;
    clearTimeout(forced);
    this.bound = false;
  }

  private connect(): void {
    const { tls, host, port, systemId, password } = this.endpoint;
    // smpps: the library's `ssmpp` scheme, over tls.connect with Node's certificate checks
    // (the system's CAs, plus NODE_EXTRA_CA_CERTS for a carrier's private CA).
    const session = smpp.connect({ url: `${tls ? 'ssmpp' : 'smpp'}://${host}:${port}`, auto_enquire_link_period: this.settings.enquireLinkMs });
    this.session = session;
    session.on('connect', () => {
      // A carrier that accepts the connection but never answers the bind is dropped and retried.
      const bindTimer = setTimeout(() => session.destroy(), this.settings.responseTimeoutMs);
      const systemType = this.settings.systemType ? { system_type: this.settings.systemType } : {};
      session.bind_transceiver({ system_id: systemId, password, ...systemType }, (pdu) => {
        clearTimeout(bindTimer);
        if (pdu.command_status !== 0) {
          this.logger.error({ url: redactSmppUrl(this.settings.url), status: hex(pdu.command_status) }, 'carrier refused the bind');
          session.destroy();
          return;
        }
        this.bound = true;
        this.reconnectDelay = 250;
        this.logger.info({ url: redactSmppUrl(this.settings.url) }, 'bound to the carrier as transceiver');
        this.onBound();
      });
    });
    session.on('deliver_sm', (pdu: smpp.Pdu) => void this.handleDeliverSm(session, pdu));
    session.on('pdu_error', (error: Error, header: { command_id: number; sequence_number: number }) => this.refuseUndecodable(session, error, header));
    // Some carriers send inbound SMS (and receipts) as data_sm: the same handling, its own response.
    session.on('data_sm', (pdu: smpp.Pdu) => void this.handleDeliverSm(session, pdu));
    session.on('enquire_link', (pdu: smpp.Pdu) => session.send(pdu.response()));
    session.on('unbind', (pdu: smpp.Pdu) => {
      session.send(pdu.response());
      session.close();
    });
    // Message and code only: a TLS error carries the peer's whole certificate.
    session.on('error', (error: NodeJS.ErrnoException) => this.logger.warn({ err: { message: error.message, code: error.code } }, 'carrier connection error'));
    session.on('close', () => {
      this.bound = false;
      // Submits waiting for a response on this connection will never get one: try them again later.
      for (const done of [...this.inFlight.values()]) done({ ok: false, temporary: true, status: -1, detail: 'carrier connection lost' });
      if (this.session !== session) return;
      // A closed session emits 'close' once: stop() must not wait for it again.
      this.session = undefined;
      if (this.stopping) return;
      this.logger.warn({ retryInMs: this.reconnectDelay }, 'carrier connection closed; reconnecting');
      this.reconnectTimer = setTimeout(() => this.connect(), this.reconnectDelay);
      this.reconnectDelay = Math.min(this.reconnectDelay * 2, this.settings.reconnectMaxMs);
    });
  }

  private async handleDeliverSm(session: smpp.Session, pdu: smpp.Pdu): Promise<void> {
    const timer = receiptAckSeconds.startTimer();
    const message = pdu['short_message'] as { message?: unknown } | Buffer | undefined;
    const text = Buffer.isBuffer(message) ? message.toString('latin1') : String(message?.message ?? '');
    try {
      await this.onDeliverSm({
        esmClass: Number(pdu['esm_class'] ?? 0),
        shortMessage: text,
        receiptedMessageId: typeof pdu['receipted_message_id'] === 'string' ? pdu['receipted_message_id'] : null,
        messageState: typeof pdu['message_state'] === 'number' ? pdu['message_state'] : null,
        fields: pdu as unknown as Readonly<Record<string, unknown>>,
      });
      corkForThisTick(session);
      session.send(pdu.response());
      timer({ outcome: 'recorded' });
    } catch (error) {
      if (isTransientDatabaseError(error) || error instanceof ConcurrencyError) {
        // Not recorded for now (the database away): the carrier delivers it again; a warning, nothing is lost.
        this.logger.warn({ err: error }, 'receipt or inbound SMS not recorded; asking the carrier to retry');
        session.send(pdu.response({ command_status: ESME_RX_T_APPN }));
        timer({ outcome: 'retry' });
        return;
      }
      // What this PDU holds can never be recorded: asked again, it would fail again, for ever. It
      // is refused for good, once, and the carrier gives up on it.
      this.logger.error({ err: error, fields: describePdu(pdu) }, 'receipt or inbound SMS refused: it cannot be recorded');
      session.send(pdu.response({ command_status: ESME_RX_R_APPN }));
      timer({ outcome: 'refused' });
    }
  }

  /**
   * A PDU the library read whole but could not decode (reported by the patched library with its
   * header, patches/README.md): a deliver_sm or data_sm is refused for good, as one that cannot be
   * recorded; any other request gets a generic_nack. A response that cannot be read is left to the
   * response timeout of the submit waiting for it.
   */
  private refuseUndecodable(session: smpp.Session, error: Error, header: { command_id: number; sequence_number: number }): void {
    const command = header.command_id === DELIVER_SM ? 'deliver_sm_resp' : header.command_id === DATA_SM ? 'data_sm_resp' : null;
    this.logger.error({ err: { message: error.message }, commandId: hex(header.command_id), sequence: header.sequence_number }, 'undecodable PDU from the carrier; refused');
    if ((header.command_id & 0x80000000) !== 0) return;
    const status = command ? ESME_RX_R_APPN : ESME_RINVMSGLEN;
    session.send(new smpp.PDU(command ?? 'generic_nack', { sequence_number: header.sequence_number, command_status: status }));
    if (command) receiptAckSeconds.observe({ outcome: 'refused' }, 0);
  }

  private async takeSlot(): Promise<void> {
    while (this.outstanding >= this.settings.window) await new Promise<void>((resolve) => this.slotWaiters.push(resolve));
    this.outstanding++;
  }

  private releaseSlot(): void {
    this.outstanding--;
    this.slotWaiters.shift()?.();
  }
}

let nextInFlightId = 1;

const corked = new WeakSet<object>();

/**
 * PDUs written in one tick leave in one writev instead of one syscall each: a window of submits,
 * or the responses to a burst of receipts: on the thread that answers receipts, syscalls are a
 * large share of the work (docs/adr/0034-delivery-path-end-to-end.md).
 */
function corkForThisTick(session: smpp.Session): void {
  const socket = session.socket;
  if (!socket || corked.has(socket)) return;
  corked.add(socket);
  socket.cork();
  process.nextTick(() => {
    corked.delete(socket);
    socket.uncork();
  });
}

function hex(status: number): string {
  return status.toString(16).padStart(8, '0').toUpperCase();
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Enough of a refused PDU for an operator to find it at the carrier, without its text. */
function describePdu(pdu: smpp.Pdu): Record<string, unknown> {
  const message = pdu['short_message'] as { message?: unknown } | Buffer | undefined;
  const octets = Buffer.isBuffer(message) ? message.length : typeof message?.message === 'string' ? message.message.length : null;
  return { command: pdu.command, sequence: pdu.sequence_number, esmClass: pdu['esm_class'], dataCoding: pdu['data_coding'], destination: pdu['destination_addr'], length: octets };
}
