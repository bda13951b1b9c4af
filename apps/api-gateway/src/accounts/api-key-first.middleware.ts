import type { Type } from '@nestjs/common';
import { RequestMethod } from '@nestjs/common';
import { GUARDS_METADATA, METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { toApiError } from '../http/api-exception.filter';
import { closeUnreadBody, hasBody } from '../http/json-body.middleware';
import { sendApiError } from '../http/send-api-error';
import { ApiKeyGuard } from './api-key.guard';

/** A route behind ApiKeyGuard: its method and its path template split in segments. */
export interface KeyRoute {
  method: string;
  segments: readonly string[];
}

/**
 * The routes of `controllers` behind ApiKeyGuard (on the controller or the handler), read from
 * Nest's own metadata so that the list cannot drift from the guards.
 */
export function apiKeyRoutes(controllers: readonly Type<unknown>[]): KeyRoute[] {
  const routes: KeyRoute[] = [];
  for (const controller of controllers) {
    const guarded = (target: object) => ((Reflect.getMetadata(GUARDS_METADATA, target) as unknown[] | undefined) ?? []).includes(ApiKeyGuard);
    const base = pathsOf(Reflect.getMetadata(PATH_METADATA, controller));
    const proto = controller.prototype as Record<string, unknown>;
    for (const name of Object.getOwnPropertyNames(proto)) {
      const handler = proto[name];
      if (name === 'constructor' || typeof handler !== 'function') continue;
      const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
      if (method === undefined || !(guarded(controller) || guarded(handler))) continue;
      for (const prefix of base) {
        for (const path of pathsOf(Reflect.getMetadata(PATH_METADATA, handler))) {
          routes.push({ method: RequestMethod[method], segments: split(`${prefix}/${path}`) });
        }
      }
    }
  }
  return routes;
}

/** The sub-account of the route `method` and `path` reach; undefined when no ApiKeyGuard route has them. */
export function matchKeyRoute(routes: readonly KeyRoute[], method: string, path: string): { subAccountId: string | null } | undefined {
  const wanted = method === 'HEAD' ? 'GET' : method;
  // Express ignores one trailing slash; an empty segment elsewhere matches no parameter.
  const segments = path.replace(/^\//, '').replace(/\/$/, '').split('/');
  for (const route of routes) {
    if (route.method !== wanted && route.method !== 'ALL') continue;
    const params = matchSegments(route.segments, segments);
    if (params) return { subAccountId: params.get('subAccountId') ?? null };
  }
  return undefined;
}

/**
 * The API key is checked before the body is read: a request to a route behind ApiKeyGuard
 * without a valid key (or for another account's sub-account, or over its rate) is answered at once
 * with what the guard would answer, and its body is never read — the connection is closed after
 * the answer instead. The guard then lets the admitted request through without asking again.
 */
export function apiKeyFirst(guard: ApiKeyGuard, routes: readonly KeyRoute[], logger: Logger): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const route = matchKeyRoute(routes, req.method, req.path);
    if (!route) return next();
    guard.authenticate(req, route.subAccountId).then(
      () => next(),
      (error: unknown) => {
        // A large body still on its way is not read: closing is cheaper than reading 16 MB to discard it.
        if (hasBody(req)) closeUnreadBody(req, res);
        sendApiError(res, toApiError(error), logger, error);
      },
    );
  };
}

function pathsOf(metadata: unknown): string[] {
  if (Array.isArray(metadata)) return metadata.map(String);
  return [typeof metadata === 'string' ? metadata : ''];
}

function split(path: string): string[] {
  return path.split('/').filter((segment) => segment !== '');
}

/** As Express matches: literal segments case-insensitively, a `:name` any one non-empty segment. */
function matchSegments(template: readonly string[], actual: readonly string[]): Map<string, string> | undefined {
  if (template.length !== actual.length) return undefined;
  const params = new Map<string, string>();
  for (let i = 0; i < template.length; i++) {
    const want = template[i] as string;
    const got = actual[i] as string;
    if (want.startsWith(':')) {
      if (got === '') return undefined;
      try {
        params.set(want.slice(1), decodeURIComponent(got));
      } catch {
        return undefined; // Express answers a malformed escape itself (400)
      }
    } else if (want.toLowerCase() !== got.toLowerCase()) return undefined;
  }
  return params;
}
