import { createServer, type AddressInfo, type Server } from 'node:net';
import { SmppSession } from './smpp-session';
import type { SmscContext } from './smsc-context';

/** The SMPP side: a TCP listener and its sessions (smpp-session.ts). */

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
