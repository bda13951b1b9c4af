import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
  method: string;
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

export interface ReceiverOptions {
  /**
   * Keep every request in `received` (the tests' default). Benchmarks send hundreds of thousands and
   * read them through `onAccepted` instead.
   */
  keep?: boolean;
  /** Idle keep-alive of the receiver's connections; Node's default unless given. */
  keepAliveTimeoutMs?: number;
}

/**
 * A customer's webhook endpoint on 127.0.0.1, for the end-to-end tests and the benchmarks alike:
 * records every request (failed ones too), can fail N times, hang (never answer) N times, or be
 * down (closed) and come back on the same port.
 */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  private server: Server | undefined;
  private behaviour: Required<ReceiverBehaviour> = { fail: 0, failStatus: 503, hang: 0 };
  private readonly hanging: ServerResponse[] = [];
  private open = 0;
  /** Most requests in progress at once (received, not yet answered or dropped). */
  maxConcurrent = 0;
  /** Requests answered with `failStatus` so far. */
  failed = 0;
  port = 0;
  /**
   * Called in the request's own turn for each request about to be answered 200; a throw answers 400
   * instead (a body the reader cannot read).
   */
  onAccepted: (request: ReceivedWebhook) => void = () => undefined;

  private constructor(private readonly options: ReceiverOptions) {}

  static async start(port = 0, options: ReceiverOptions = {}): Promise<WebhookReceiver> {
    const receiver = new WebhookReceiver(options);
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
        const entry: ReceivedWebhook = { method: req.method ?? 'GET', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now(), answer: 200 };
        if (this.options.keep !== false) this.received.push(entry);
        if (this.behaviour.hang > 0) {
          this.behaviour.hang--;
          entry.answer = 'hang';
          this.hanging.push(res);
          return;
        }
        if (this.behaviour.fail > 0) {
          this.behaviour.fail--;
          this.failed++;
          entry.answer = this.behaviour.failStatus;
          res.writeHead(this.behaviour.failStatus).end();
          return;
        }
        try {
          this.onAccepted(entry);
        } catch {
          entry.answer = 400;
          res.writeHead(400).end();
          return;
        }
        res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      });
    });
    if (this.options.keepAliveTimeoutMs !== undefined) server.keepAliveTimeout = this.options.keepAliveTimeoutMs;
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
