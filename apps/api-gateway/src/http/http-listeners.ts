import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import { register } from 'prom-client';
import type { Logger } from 'pino';
import { StartingListener, type StartingFallback } from '@seed/platform-nest';
import { ApiError } from './api-error';
import { sendApiError } from './send-api-error';

export type ListenerName = 'messaging' | 'agent' | 'admin';

/** The current API generation's messages: under `/api/`, but on the messaging listener. */
const CURRENT_MESSAGES = '/api/v1/subaccounts/';

/** Paths each listener serves, so that the three can be exposed as separate hosts. */
const ROUTES: Record<ListenerName, readonly string[]> = {
  messaging: ['/sms/', '/verify/', CURRENT_MESSAGES],
  agent: ['/api/', '/guest/'],
  admin: ['/admin/', '/metrics'],
};
/**
 * Probes answer on every listener; metrics only on the admin one, behind the admin token (or
 * METRICS_TOKEN; admin/admin-token.guard.ts). Each listener
 * describes its own paths at /openapi.json and /docs (openapi/api-docs.middleware.ts).
 */
const EVERYWHERE = ['/health/', '/openapi.json', '/docs/'];

const listenerOf = new WeakMap<Request, ListenerName>();

/** The listener a request came in on; undefined for one that did not come through `serve`. */
export function listenerOfRequest(req: Request): ListenerName | undefined {
  return listenerOf.get(req);
}

/** Whether `listener` answers `path` (its own prefixes and those of every listener). */
export function servesPath(listener: ListenerName | undefined, path: string): boolean {
  const allowed = [...EVERYWHERE, ...(listener ? ROUTES[listener] : [])];
  const elsewhere = listener === 'agent' && path.startsWith(CURRENT_MESSAGES);
  return !elsewhere && allowed.some((prefix) => path.startsWith(prefix) || path === prefix.replace(/\/$/, ''));
}

/** Answers 404 for a path that belongs to another listener. */
export function listenerScope(logger: Logger) {
  return (req: Request, res: Response, next: NextFunction): void => {
    if (servesPath(listenerOf.get(req), req.path)) return next();
    sendApiError(res, ApiError.notFound('no such endpoint'), logger);
  };
}

/** While the gateway starts, API paths answer 503 in the contract's error shape, with `Retry-After`. */
const starting: StartingFallback = (_req, res) => {
  const body = ApiError.unavailable('the service is starting; try again', 5).toBody();
  res.writeHead(503, { 'content-type': 'application/json; charset=utf-8', 'retry-after': '5' });
  res.end(JSON.stringify(body));
};

/** Whether a request may read /metrics: null when it may, else the refusal (401, 429). */
export type MetricsAuthorizer = (req: IncomingMessage) => ApiError | null;

/** The admin listener while starting: /metrics to those `authorize` lets in, the rest as `starting`. */
function startingAdmin(authorize: MetricsAuthorizer): StartingFallback {
  return (req: IncomingMessage, res: ServerResponse) => {
    if ((req.url ?? '/').split('?')[0] !== '/metrics') return starting(req, res);
    const refusal = authorize(req);
    if (refusal) {
      const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8' };
      if (refusal.retryAfterSeconds !== undefined) headers['retry-after'] = String(refusal.retryAfterSeconds);
      res.writeHead(refusal.status, headers);
      res.end(JSON.stringify(refusal.toBody()));
      return;
    }
    void register.metrics().then((text) => {
      res.writeHead(200, { 'content-type': register.contentType });
      res.end(text);
    });
  };
}

/**
 * One Nest application, three HTTP servers: they share every provider and connection. They open
 * before the application starts (probes see the gateway alive and not ready, clients get a 503),
 * and `serve` hands them the application once it is ready.
 */
export class HttpListeners {
  private readonly listeners = new Map<ListenerName, StartingListener>();

  /**
   * Opens each listener on its port and interface: `hosts` names the interface of each (the admin
   * listener's is loopback unless ADMIN_HTTP_HOST says otherwise), or one for all. While starting,
   * the admin listener serves /metrics to requests `metrics` lets in (the token check; without it,
   * to none), so that a gateway waiting for its dependencies is still scraped.
   */
  async open(hosts: string | Record<ListenerName, string>, ports: Record<ListenerName, number>, metrics?: MetricsAuthorizer): Promise<Record<ListenerName, number>> {
    const bound = {} as Record<ListenerName, number>;
    for (const name of Object.keys(ports) as ListenerName[]) {
      const fallback = name === 'admin' && metrics ? startingAdmin(metrics) : starting;
      const listener = new StartingListener(fallback, false);
      bound[name] = await listener.listen(ports[name], typeof hosts === 'string' ? hosts : hosts[name]);
      this.listeners.set(name, listener);
    }
    return bound;
  }

  serve(handler: (req: Request, res: Response) => void): void {
    for (const [name, listener] of this.listeners) {
      listener.serve((req, res) => {
        listenerOf.set(req as Request, name);
        handler(req as Request, res as Response);
      });
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.listeners.values()].map((listener) => listener.close()));
  }
}
