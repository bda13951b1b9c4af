import type { NextFunction, Request, Response } from 'express';
import { Histogram } from 'prom-client';
import type { ListenerName } from './http-listeners';

/**
 * Every request the gateway answers, by listener, route template (`/sms/v1/:subAccountId/many`,
 * never the URL: ids would make a series per sub-account), method and status class. Requests
 * answered before any route matched (a path of another listener, a body refused by the JSON reader,
 * the OpenAPI documents) have the route `none`; a client that went away before the answer was
 * written has the status class `aborted`.
 */
export const httpRequestSeconds = new Histogram({
  name: 'http_server_request_duration_seconds',
  help: 'Time from a request arriving to its response being written, by listener, route template, method and status class',
  labelNames: ['listener', 'route', 'method', 'status_class'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
});

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** The template of the route that answered (Express keeps it on the request), or `none`. */
export function routeLabel(req: Request): string {
  const path: unknown = (req as Request & { route?: { path?: unknown } }).route?.path;
  return typeof path === 'string' ? path : 'none';
}

export function statusClassLabel(res: Response): string {
  return res.writableFinished ? `${Math.floor(res.statusCode / 100)}xx` : 'aborted';
}

/**
 * Times every request from the first middleware on. The listener is known by the local port the
 * request came in on, so the middleware needs nothing from the listeners themselves.
 */
export function httpServerMetrics(ports: Record<ListenerName, number>) {
  const listenerOfPort = new Map<number, string>(Object.entries(ports).map(([name, port]) => [port, name]));
  return (req: Request, res: Response, next: NextFunction): void => {
    const stop = httpRequestSeconds.startTimer();
    res.once('close', () =>
      stop({
        listener: listenerOfPort.get(req.socket.localPort ?? 0) ?? 'unknown',
        route: routeLabel(req),
        method: METHODS.has(req.method) ? req.method : 'other',
        status_class: statusClassLabel(res),
      }),
    );
    next();
  };
}
