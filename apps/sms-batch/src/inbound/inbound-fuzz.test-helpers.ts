import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { seededRandom } from '@seed/platform-testing';

/*
 * The carrier's side of an SMPP session, written byte by byte: it answers a bind and enquire_link,
 * and sends PDUs exactly as given (malformed ones too, which no SMPP library would write), keeping
 * every response by sequence number. And a seeded generator of the deliver_sm and data_sm a
 * careless or hostile carrier could send.
 */

const BIND_TRANSCEIVER = 0x00000009;
const ENQUIRE_LINK = 0x00000015;
const UNBIND = 0x00000006;
const RESPONSE = 0x80000000;
export const DELIVER_SM = 0x00000005;
export const DATA_SM = 0x00000103;
export const GENERIC_NACK = 0x80000000;

export interface PduResponse {
  commandId: number;
  status: number;
}

/** One PDU: its header (length, command, status 0, sequence) before the body. */
export function pduBytes(commandId: number, sequence: number, body: Buffer): Buffer {
  const header = Buffer.alloc(16);
  header.writeUInt32BE(16 + body.length, 0);
  header.writeUInt32BE(commandId >>> 0, 4);
  header.writeUInt32BE(sequence, 12);
  return Buffer.concat([header, body]);
}

export class RawSmsc {
  /** Binds accepted: more than one means the session was lost and made again. */
  binds = 0;
  /** Every response the platform sent, by the sequence number of the request it answers. */
  readonly responses = new Map<number, PduResponse[]>();
  private socket: Socket | undefined;
  private pending = Buffer.alloc(0);

  private constructor(private readonly server: Server) {}

  static async start(): Promise<RawSmsc> {
    const server = createServer((socket) => smsc.accept(socket));
    const smsc = new RawSmsc(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return smsc;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  send(pdu: Buffer): void {
    if (!this.socket) throw new Error('no session is bound');
    this.socket.write(pdu);
  }

  async stop(): Promise<void> {
    this.socket?.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(socket: Socket): void {
    this.socket = socket;
    socket.on('error', () => undefined);
    socket.on('data', (chunk: Buffer) => {
      this.pending = Buffer.concat([this.pending, chunk]);
      while (this.pending.length >= 16 && this.pending.length >= this.pending.readUInt32BE(0)) {
        const length = this.pending.readUInt32BE(0);
        this.received(this.pending.subarray(0, length));
        this.pending = this.pending.subarray(length);
      }
    });
  }

  private received(pdu: Buffer): void {
    const commandId = pdu.readUInt32BE(4);
    const status = pdu.readUInt32BE(8);
    const sequence = pdu.readUInt32BE(12);
    if ((commandId & RESPONSE) >>> 0 !== 0) {
      this.responses.set(sequence, [...(this.responses.get(sequence) ?? []), { commandId, status }]);
      return;
    }
    if (commandId === BIND_TRANSCEIVER) {
      this.binds += 1;
      this.socket?.write(pduBytes(BIND_TRANSCEIVER | RESPONSE, sequence, Buffer.from('fuzz\0', 'latin1')));
    } else if (commandId === ENQUIRE_LINK || commandId === UNBIND) {
      this.socket?.write(pduBytes(commandId | RESPONSE, sequence, Buffer.alloc(0)));
    }
  }
}

export type FuzzKind = 'plain' | 'udh' | 'truncated-udh' | 'sar' | 'payload' | 'data_sm' | 'keyword' | 'empty' | 'malformed';

export interface FuzzPdu {
  kind: FuzzKind;
  bytes: Buffer;
  /** For a well-formed single-part message: the sender it was given, unique to it. */
  trackedSource: string | null;
}

const cstring = (text: string) => Buffer.from(`${text}\0`, 'latin1');
const u8 = (value: number) => Buffer.from([value & 0xff]);
const tlv = (tag: number, value: Buffer) => {
  const head = Buffer.alloc(4);
  head.writeUInt16BE(tag, 0);
  head.writeUInt16BE(value.length, 2);
  return Buffer.concat([head, value]);
};
const u16 = (value: number) => {
  const b = Buffer.alloc(2);
  b.writeUInt16BE(value & 0xffff, 0);
  return b;
};

const DATA_CODINGS = [0x00, 0x01, 0x02, 0x03, 0x04, 0x08, 0x10, 0x18, 0xc0, 0xd0, 0xe0, 0xf0, 0xf4, 0xf8];
const KEYWORDS = ['STOP', 'stop', 'HELP', 'START', 'UNSTOP', 'INFO', ' Stop ', 'STOPALL'];

/** What a carrier may send: each PDU of `count`, from `seed`, sent to `number` (now and then elsewhere). */
export function fuzzPdus(seed: number, count: number, number: string, firstSequence = 1): FuzzPdu[] {
  const random = seededRandom(seed);
  const int = (below: number) => Math.floor(random() * below);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)] as T;
  const octets = (length: number): Buffer => {
    // Patterns a decoder trips on: NULs, 0xFF runs, lone UTF-16 surrogates, escapes at the end.
    const pattern = int(6);
    return Buffer.from(Array.from({ length }, (_, i) => {
      if (pattern === 0) return 0x00;
      if (pattern === 1) return i % 2 === 0 ? 0xd8 + int(8) : int(256);
      if (pattern === 2) return i === length - 1 ? 0x1b : int(0x80);
      if (pattern === 3) return 0xff;
      return int(256);
    }));
  };
  const pdus: FuzzPdu[] = [];
  for (let i = 0; i < count; i++) {
    const sequence = firstSequence + i;
    const kind = pick<FuzzKind>(['plain', 'plain', 'plain', 'udh', 'truncated-udh', 'sar', 'payload', 'data_sm', 'keyword', 'empty', 'malformed', 'malformed']);
    const destination = random() < 0.9 ? number : `44${String(int(1e10)).padStart(10, '0')}`;
    const tracked = kind === 'plain' ? `4479${String(seed % 1000).padStart(3, '0')}${String(i).padStart(6, '0')}` : null;
    const source = tracked ?? pick([`44${String(int(1e10)).padStart(10, '0')}`, `0${String(int(1e10)).padStart(10, '0')}`, 'ACME', 'Ünïcødé\xff', '', '+447700900123']);
    const dataCoding = kind === 'keyword' ? 0 : pick(DATA_CODINGS);
    const sourceTon = tracked ? 1 : int(7);
    const head = (esmClass: number) =>
      Buffer.concat([cstring(''), u8(sourceTon), u8(int(19)), cstring(source), u8(1), u8(1), cstring(destination), u8(esmClass), u8(0), u8(0), cstring(''), cstring(''), u8(0), u8(0), u8(dataCoding), u8(0)]);
    const shortMessage = (data: Buffer) => Buffer.concat([u8(data.length), data]);
    let body: Buffer;
    let commandId = DELIVER_SM;
    switch (kind) {
      case 'plain':
        body = Buffer.concat([head(0), shortMessage(octets(1 + int(254)))]);
        break;
      case 'keyword':
        body = Buffer.concat([head(0), shortMessage(Buffer.from(pick(KEYWORDS), 'latin1'))]);
        break;
      case 'empty':
        body = Buffer.concat([head(int(2) * 0x40), shortMessage(Buffer.alloc(0))]);
        break;
      case 'udh': {
        // 8- or 16-bit references, any total and sequence (0 and past the total too).
        const sixteen = random() < 0.5;
        const udh = sixteen ? [0x06, 0x08, 0x04, int(256), int(256), int(5), int(6)] : [0x05, 0x00, 0x03, int(256), int(5), int(6)];
        body = Buffer.concat([head(0x40), shortMessage(Buffer.concat([Buffer.from(udh), octets(int(248 - udh.length))]))]);
        break;
      }
      case 'truncated-udh':
        // A header length past the end, or nothing after the indicator.
        body = Buffer.concat([head(0x40), shortMessage(random() < 0.5 ? Buffer.from([0xfa, 0x00, 0x03]) : Buffer.from([int(256)]))]);
        break;
      case 'sar':
        body = Buffer.concat([head(0), shortMessage(octets(int(160))), tlv(0x020c, u16(int(65536))), tlv(0x020e, u8(int(4))), tlv(0x020f, u8(int(5)))]);
        break;
      case 'payload':
        body = Buffer.concat([head(int(2) * 0x40), shortMessage(Buffer.alloc(0)), tlv(0x0424, octets(int(1100)))]);
        break;
      case 'data_sm':
        commandId = DATA_SM;
        body = Buffer.concat([cstring(''), u8(1), u8(1), cstring(source), u8(1), u8(1), cstring(destination), u8(0), u8(0), u8(dataCoding), tlv(0x0424, octets(int(400)))]);
        break;
      case 'malformed': {
        const whole = Buffer.concat([head(0x40), shortMessage(octets(int(200))), tlv(0x020c, u16(1))]);
        const mutation = int(4);
        if (mutation === 0) body = whole.subarray(0, int(whole.length)); // cut anywhere
        else if (mutation === 1) body = octets(int(300)); // not a deliver_sm at all
        else if (mutation === 2) body = Buffer.concat([head(0), u8(250), octets(int(40))]); // sm_length past the end
        else body = Buffer.concat([head(0), shortMessage(octets(10)), Buffer.from([0x04, 0x24, 0xff, 0xff, 0x41])]); // a TLV longer than the PDU
        break;
      }
    }
    pdus.push({ kind, bytes: pduBytes(commandId, sequence, body), trackedSource: tracked });
  }
  return pdus;
}
