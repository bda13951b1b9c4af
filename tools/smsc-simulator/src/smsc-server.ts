import { readFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import { SmppSession } from './smpp-session';
import type { SmscContext } from './smsc-context';

/** The SMPP side: a TCP listener (TLS when given a certificate and key) and its sessions (smpp-session.ts). */

export class SmscServer {
  private readonly sessions = new Set<SmppSession>();
  private readonly server: Server;
  private nextSessionId = 1;

  constructor(ctx: SmscContext) {
    const accept = (socket: Socket) => {
      const session = new SmppSession(socket, ctx, this.nextSessionId++);
      this.sessions.add(session);
      void session.whenClosed.then(() => this.sessions.delete(session));
    };
    const { tlsCertFile, tlsKeyFile } = ctx.config.current;
    // A carrier reached over smpps://: the ESME's certificate checks meet a real TLS listener.
    this.server =
      tlsCertFile && tlsKeyFile
        ? createTlsServer({ cert: readFileSync(tlsCertFile), key: readFileSync(tlsKeyFile) }, accept)
        : createServer(accept);
  }

  get sessionCount(): number {
    return this.sessions.size;
  }

  get boundSessionCount(): number {
    let count = 0;
    for (const session of this.sessions) if (session.isBound) count++;
    return count;
  }

  /** submit_sm held (submitDelayMs) over every session, not answered yet. */
  get heldSubmits(): number {
    let count = 0;
    for (const session of this.sessions) count += session.heldSubmits;
    return count;
  }

  /** Sessions that can take deliver_sm now (bound as receiver or transceiver), oldest first. */
  receivers(): SmppSession[] {
    return [...this.sessions].filter((session) => session.canReceive);
  }

  listen(host: string, port: number): Promise<AddressInfo> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        this.server.off('error', reject);
        resolve(this.server.address() as AddressInfo);
      });
    });
  }

  /** Every connection at once (`POST /sessions/drop`); returns how many were still open. */
  dropAll(graceMs = 1000): number {
    let dropped = 0;
    for (const session of this.sessions) if (session.sever(graceMs)) dropped++;
    return dropped;
  }

  async close(graceMs = 1000): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    await Promise.all([...this.sessions].map((session) => session.shutdown(graceMs)));
    await closed;
  }
}
