import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { ApiError } from './api-error';
import { sendApiError } from './send-api-error';

/** What this file reads of Express 5's router: its layers, and for a route its path and methods. */
interface RouterLayer {
  readonly route?: { readonly path: string; readonly methods: Readonly<Record<string, boolean>> };
  match(path: string): boolean;
}

/**
 * A path the application has, asked with a method it does not have: 405 with `Allow` (RFC 9110),
 * not the "no such endpoint" 404 of an unknown path. Decided before the routes, because a route
 * of another method may match the path too: `GET .../messages/batch` would otherwise reach
 * `GET .../messages/{umid}`, where the document (as OpenAPI matches paths) has no GET.
 */
export function methodNotAllowed(logger: Logger): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const allow = allowedMethods(req);
    if (allow.length === 0 || allow.includes(req.method)) return next();
    sendApiError(res, ApiError.methodNotAllowed(req.method, allow), logger);
  };
}

/**
 * The methods of the routes that have the request's path, upper case and sorted; empty when none
 * has it. Of several routes that match, only the most specific count (the fewest parameters), as
 * OpenAPI matches a concrete path before a templated one. Express answers HEAD wherever it answers
 * GET. Read from the router, so that it cannot drift from the routes Nest registered.
 */
export function allowedMethods(req: Pick<Request, 'app' | 'path'>): string[] {
  const stack = (req.app as unknown as { router?: { stack?: readonly RouterLayer[] } }).router?.stack ?? [];
  // Middleware layers have no route.
  const matching = stack.flatMap((layer) => (layer.route && layer.match(req.path) ? [layer.route] : []));
  const fewest = Math.min(...matching.map((route) => parameters(route.path)));
  const methods = new Set<string>();
  for (const route of matching.filter((r) => parameters(r.path) === fewest)) {
    // `_all` would be app.all(), which answers every method: nothing to refuse.
    if (route.methods['_all']) return [];
    for (const method of Object.keys(route.methods)) methods.add(method.toUpperCase());
  }
  if (methods.has('GET')) methods.add('HEAD');
  return [...methods].sort();
}

const parameters = (path: string): number => path.split('/').filter((segment) => /^[:*]/.test(segment)).length;
