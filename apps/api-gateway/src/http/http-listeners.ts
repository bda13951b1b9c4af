import type { NextFunction, Request, Response } from 'express';
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
 * Probes answer on every listener; metrics only on the admin one (not public). Each listener
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

/**
 * One Nest application, three HTTP servers: they share every provider and connection. They open
 * before the application starts (probes see the gateway alive and not ready, clients get a 503),
 * and `serve` hands them the application once it is ready.
 */
export class HttpListeners {
  private readonly listeners = new Map<ListenerName, StartingListener>();

  async open(host: string, ports: Record<ListenerName, number>): Promise<Record<ListenerName, number>> {
    const bound = {} as Record<ListenerName, number>;
    for (const name of Object.keys(ports) as ListenerName[]) {
      const listener = new StartingListener(starting, ROUTES[name].includes('/metrics'));
      bound[name] = await listener.listen(ports[name], host);
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
