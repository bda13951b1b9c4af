import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';
import { ApiError } from './api-error';
import { sendApiError } from './send-api-error';

export type ListenerName = 'messaging' | 'agent' | 'admin';

/** Paths each listener serves, so that the three can be exposed as separate hosts. */
const ROUTES: Record<ListenerName, readonly string[]> = {
  messaging: ['/sms/', '/verify/'],
  agent: ['/api/', '/guest/'],
  admin: ['/admin/', '/metrics'],
};
/** Probes answer on every listener; metrics only on the admin one (not public). */
const EVERYWHERE = ['/health/'];

const listenerOf = new WeakMap<Request, ListenerName>();

/** Answers 404 for a path that belongs to another listener. */
export function listenerScope(logger: Logger) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const listener = listenerOf.get(req);
    const allowed = [...EVERYWHERE, ...(listener ? ROUTES[listener] : [])];
    if (allowed.some((prefix) => req.path.startsWith(prefix) || req.path === prefix.replace(/\/$/, ''))) return next();
    sendApiError(res, ApiError.notFound('no such endpoint'), logger);
  };
}

/** One Nest application, three HTTP servers: they share every provider and connection. */
export class HttpListeners {
  private readonly servers: Server[] = [];

  async open(
    handler: (req: Request, res: Response) => void,
    host: string,
    ports: Record<ListenerName, number>,
  ): Promise<Record<ListenerName, number>> {
    const bound = {} as Record<ListenerName, number>;
    for (const name of Object.keys(ports) as ListenerName[]) {
      const server = createServer((req, res) => {
        listenerOf.set(req as Request, name);
        handler(req as Request, res as Response);
      });
      server.keepAliveTimeout = 65_000; // longer than common load-balancer idle timeouts
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(ports[name], host, resolve);
      });
      this.servers.push(server);
      bound[name] = (server.address() as AddressInfo).port;
    }
    return bound;
  }

  async close(): Promise<void> {
    await Promise.all(
      this.servers.map(
        (server) =>
          new Promise<void>((resolve) => {
            server.close(() => resolve());
            server.closeIdleConnections();
          }),
      ),
    );
  }
}
