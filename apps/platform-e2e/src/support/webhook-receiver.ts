import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DeliveryStatusWebhook } from '@seed/webhook-dispatcher-contracts';

export interface ReceivedWebhook {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
  /** What the receiver answered: a status, or 'hang' (no answer). */
  answer: number | 'hang';
}

/** How the receiver answers the next requests: `fail` times with `failStatus`, `hang` times silently, then 200. */
export interface ReceiverBehaviour {
  fail?: number;
  failStatus?: number;
  hang?: number;
}

/**
 * A customer's webhook endpoint on 127.0.0.1: records every request (failed ones too), can fail N
 * times, hang (never answer) N times, or be down (closed) and come back on the same port.
 */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  private server: Server | undefined;
  private behaviour: Required<ReceiverBehaviour> = { fail: 0, failStatus: 503, hang: 0 };
  private readonly hanging: ServerResponse[] = [];
  private open = 0;
  /** Most requests in progress at once (received, not yet answered or dropped). */
  maxConcurrent = 0;
  port = 0;

  static async start(port = 0): Promise<WebhookReceiver> {
    const receiver = new WebhookReceiver();
    await receiver.listen(port);
    return receiver;
  }

  url(path = '/dlr'): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  behave(behaviour: ReceiverBehaviour): void {
    this.behaviour = { fail: behaviour.fail ?? 0, failStatus: behaviour.failStatus ?? 503, hang: behaviour.hang ?? 0 };
  }

  /** Requests answered 2xx whose path starts with `path`. */
  accepted(path = '/'): ReceivedWebhook[] {
    return this.received.filter((r) => r.answer === 200 && r.path.startsWith(path));
  }

  async listen(port = this.port): Promise<void> {
    const server = createServer((req, res) => {
      this.open++;
      this.maxConcurrent = Math.max(this.maxConcurrent, this.open);
      res.once('close', () => this.open--);
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const entry: ReceivedWebhook = { path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now(), answer: 200 };
        this.received.push(entry);
        if (this.behaviour.hang > 0) {
          this.behaviour.hang--;
          entry.answer = 'hang';
          this.hanging.push(res);
          return;
        }
        if (this.behaviour.fail > 0) {
          this.behaviour.fail--;
          entry.answer = this.behaviour.failStatus;
          res.writeHead(this.behaviour.failStatus).end();
          return;
        }
        res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    this.server = server;
    this.port = (server.address() as AddressInfo).port;
  }

  /** Down: connections are refused until `listen()` again. */
  async close(): Promise<void> {
    for (const res of this.hanging.splice(0)) res.destroy();
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

/** What the docs tell customers to do: the header's t and one v1 per valid secret, HMAC-SHA256 over "<t>.<body>". */
export function verifiesWith(secret: string, header: string | string[] | undefined, body: string): boolean {
  if (typeof header !== 'string') return false;
  const parts = header.split(',').map((p) => p.split('='));
  const t = parts.find(([k]) => k === 't')?.[1];
  if (!t || Math.abs(Date.now() / 1000 - Number(t)) > 300) return false;
  const expected = createHmac('sha256', secret).update(`${t}.${body}`).digest();
  return parts.some(([k, v]) => k === 'v1' && v !== undefined && /^[0-9a-f]{64}$/.test(v) && timingSafeEqual(Buffer.from(v, 'hex'), expected));
}

/** The body as a receiver parses it: the contract's type, so a test reads the fields the dispatcher sends. */
export const bodyOf = (r: ReceivedWebhook): DeliveryStatusWebhook => JSON.parse(r.body) as DeliveryStatusWebhook;
