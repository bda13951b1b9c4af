import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import { register } from 'prom-client';
import '../default-metrics';

/** What a listener answers, besides the probes, while its service is still starting. */
export type StartingFallback = (req: IncomingMessage, res: ServerResponse) => void;

const notReady: StartingFallback = (_req, res) => json(res, 503, { status: 'starting' });

/**
 * An HTTP listener opened before anything else, so that a service still waiting for PostgreSQL or
 * Kafka is seen as alive and not ready (/health/live 200, /health/ready 503, /metrics served),
 * rather than as a closed port. `serve` then hands every request to the application, on the same
 * socket: no moment without a listener between the two.
 */
export class StartingListener {
  readonly server: Server;
  private handler: RequestListener;

  /** `metrics` false: /metrics is left to `fallback` (a public listener does not expose it). */
  constructor(fallback: StartingFallback = notReady, metrics = true) {
    this.handler = (req, res) => answerStarting(req, res, fallback, metrics);
    this.server = createServer((req, res) => this.handler(req, res));
    this.server.keepAliveTimeout = 65_000; // longer than common load-balancer idle timeouts
  }

  listen(port: number, host: string): Promise<number> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        this.server.off('error', reject);
        const address = this.server.address();
        resolve(typeof address === 'object' && address ? address.port : port);
      });
    });
  }

  serve(handler: RequestListener): void {
    this.handler = handler;
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      this.server.closeIdleConnections();
    });
  }
}

function answerStarting(req: IncomingMessage, res: ServerResponse, fallback: StartingFallback, metrics: boolean): void {
  const path = (req.url ?? '/').split('?')[0];
  if (path === '/health/live') return json(res, 200, { status: 'ok' });
  if (path === '/health/ready') return json(res, 503, { status: 'starting' });
  if (metrics && path === '/metrics') {
    void register.metrics().then((text) => {
      res.writeHead(200, { 'content-type': register.contentType });
      res.end(text);
    });
    return;
  }
  fallback(req, res);
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(body));
}
