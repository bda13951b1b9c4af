/**
 * An ESME for the integration tests, built on the npm `smpp` library (0.5.1): an implementation
 * independent of the simulator's own codec. The library has no types; the few parts used are
 * declared here. It never times out a request nor fails it when the connection closes, and it
 * does not answer deliver_sm, enquire_link or unbind by itself: this wrapper does all of that.
 */
import type { EventEmitter } from 'node:events';

export interface LibPdu {
  command: string;
  command_status: number;
  sequence_number: number;
  response(options?: Record<string, unknown>): LibPdu;
  [field: string]: unknown;
}

interface LibSession extends EventEmitter {
  send(pdu: LibPdu, onResponse?: (pdu: LibPdu) => void): boolean;
  close(callback?: () => void): void;
  destroy(callback?: () => void): void;
}

interface LibModule {
  connect(options: { host: string; port: number }, onConnect?: () => void): LibSession;
  PDU: new (command: string, options?: Record<string, unknown>) => LibPdu;
}

// eslint-disable-next-line @typescript-eslint/no-require-imports -- untyped CommonJS library
const smpp = require('smpp') as LibModule;

/** The receipt fields as the library decodes them. */
export interface LibReceipt extends LibPdu {
  esm_class: number;
  source_addr: string;
  destination_addr: string;
  short_message: { message: string };
  receipted_message_id: string;
  message_state: number;
}

export class TestEsme {
  readonly deliveries: LibReceipt[] = [];
  /** false: deliver_sm are recorded but not answered (to test resending). */
  acknowledge = true;
  /** The command_status of the deliver_sm_resp it sends (non-zero: to test the retries). */
  answerStatus = 0;
  private readonly pending = new Set<(error: Error) => void>();
  private closedFlag = false;
  readonly whenClosed: Promise<void>;

  private constructor(private readonly session: LibSession) {
    this.whenClosed = new Promise((resolve) => session.once('close', () => {
      this.closedFlag = true;
      for (const fail of this.pending) fail(new Error('connection closed before the response'));
      this.pending.clear();
      resolve();
    }));
    session.on('error', () => undefined); // 'close' follows
    session.on('deliver_sm', (pdu: LibReceipt) => {
      this.deliveries.push(pdu);
      if (this.acknowledge) session.send(pdu.response({ command_status: this.answerStatus }));
    });
    session.on('enquire_link', (pdu: LibPdu) => session.send(pdu.response()));
    session.on('unbind', (pdu: LibPdu) => session.send(pdu.response()));
  }

  static connect(port: number): Promise<TestEsme> {
    return new Promise((resolve, reject) => {
      const session = smpp.connect({ host: '127.0.0.1', port }, () => {
        session.off('error', reject);
        resolve(new TestEsme(session));
      });
      session.once('error', reject);
    });
  }

  /** Connects and binds; fails unless the bind succeeds. */
  static async bound(port: number, type: 'transceiver' | 'transmitter' | 'receiver' = 'transceiver'): Promise<TestEsme> {
    const esme = await TestEsme.connect(port);
    const response = await esme.bind(type);
    if (response.command_status !== 0) throw new Error(`bind failed with status ${response.command_status}`);
    return esme;
  }

  get closed(): boolean {
    return this.closedFlag;
  }

  request(command: string, options: Record<string, unknown> = {}): Promise<LibPdu> {
    return new Promise((resolve, reject) => {
      const fail = (error: Error) => reject(error);
      this.pending.add(fail);
      const sent = this.session.send(new smpp.PDU(command, options), (response) => {
        this.pending.delete(fail);
        resolve(response);
      });
      if (!sent) {
        this.pending.delete(fail);
        reject(new Error('socket not writable'));
      }
    });
  }

  bind(type: 'transceiver' | 'transmitter' | 'receiver', systemId = 'seed', password = 'secret'): Promise<LibPdu> {
    return this.request(`bind_${type}`, { system_id: systemId, password });
  }

  submit(options: Record<string, unknown>): Promise<LibPdu> {
    return this.request('submit_sm', { source_addr: 'ACME', source_addr_ton: 5, dest_addr_ton: 1, dest_addr_npi: 1, ...options });
  }

  /**
   * Keeps `window` submit_sm outstanding until `count` are answered; returns the statuses in
   * submission order. `options(i)` gives the fields of the i-th message.
   */
  submitPipelined(count: number, window: number, options: (i: number) => Record<string, unknown>): Promise<number[]> {
    const statuses: number[] = new Array<number>(count);
    let next = 0;
    let answered = 0;
    return new Promise((resolve, reject) => {
      const sendNext = (): void => {
        const i = next++;
        this.submit(options(i)).then((response) => {
          statuses[i] = response.command_status;
          if (++answered === count) resolve(statuses);
          else if (next < count) sendNext();
        }, reject);
      };
      for (let i = 0; i < Math.min(window, count); i++) sendNext();
    });
  }

  async waitForDeliveries(count: number, timeoutMs = 10_000): Promise<LibReceipt[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.deliveries.length < count) {
      if (Date.now() > deadline) throw new Error(`got ${this.deliveries.length} of ${count} deliver_sm`);
      await new Promise((r) => setTimeout(r, 10));
    }
    return this.deliveries;
  }

  /** Ends the TCP connection without unbinding. */
  async disconnect(): Promise<void> {
    if (!this.closedFlag) this.session.destroy();
    await this.whenClosed;
  }
}

export async function getJson<T = unknown>(httpPort: number, path: string, init?: RequestInit): Promise<{ status: number; body: T }> {
  const response = await fetch(`http://127.0.0.1:${httpPort}${path}`, init);
  return { status: response.status, body: (await response.json()) as T };
}

export function putConfig(httpPort: number, patch: Record<string, unknown>): Promise<{ status: number; body: unknown }> {
  return getJson(httpPort, '/config', { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(patch) });
}

export async function waitUntil(check: () => Promise<boolean> | boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}
