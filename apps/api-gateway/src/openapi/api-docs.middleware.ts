import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { ApiErrorCode } from '@seed/contracts';
import { bearerToken } from '../accounts/api-key.guard';
import { ApiError } from '../http/api-error';
import { listenerOfRequest, type ListenerName } from '../http/http-listeners';
import { sendApiError } from '../http/send-api-error';
import { LISTENERS, serializeDocument, type ListenerDocuments } from './openapi-documents';
import { SWAGGER_UI_ASSETS, SWAGGER_UI_CSP, SWAGGER_UI_INITIALIZER, swaggerUiAsset, swaggerUiPage } from './swagger-ui-page';

const DOCS = '/docs';

export interface ApiDocsOptions {
  documents: ListenerDocuments;
  /**
   * AdminTokenGuard's check: the admin listener's docs are as secret as its API (a failure counts
   * against the address's failed-authentication budget, and an address over it is refused).
   */
  isAdminToken: (token: string | null, req: Request) => boolean;
  logger: Logger;
}

/**
 * `GET /openapi.json` (the listener's own document) and `GET /docs` (Swagger UI over it) on each
 * listener. On the admin listener both need the admin token: as a bearer token like the API, or,
 * since a browser cannot send one when it opens a page, as the password of HTTP Basic
 * authentication (any user name), which the browser asks for and then sends with every request
 * of the page. The API itself accepts only the bearer token.
 */
export function apiDocs({ documents, isAdminToken, logger }: ApiDocsOptions): RequestHandler {
  const served = Object.fromEntries(LISTENERS.map((listener) => [listener, serializeDocument(documents[listener])])) as Record<ListenerName, string>;
  const pages = Object.fromEntries(LISTENERS.map((listener) => [listener, swaggerUiPage(documents[listener].info.title)])) as Record<ListenerName, string>;

  return (req: Request, res: Response, next: NextFunction): void => {
    const listener = listenerOfRequest(req);
    const isDocs = req.path === '/openapi.json' || req.path === DOCS || req.path.startsWith(`${DOCS}/`);
    if (!listener || !isDocs || (req.method !== 'GET' && req.method !== 'HEAD')) return next();
    if (listener === 'admin' && !isAdminToken(docsToken(req), req)) {
      res.setHeader('WWW-Authenticate', 'Basic realm="Seed Messaging admin API docs", charset="UTF-8"');
      return sendApiError(res, new ApiError(401, ApiErrorCode.Unauthorized, 'missing or wrong admin token: send it as a bearer token, or as the password of basic authentication'), logger);
    }
    res.setHeader('Cache-Control', listener === 'admin' ? 'private, no-cache' : 'no-cache');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    if (req.path === '/openapi.json') {
      res.type('application/json').send(served[listener]);
      return;
    }
    const file = req.path === DOCS ? '' : req.path.slice(DOCS.length + 1);
    if (file === '' || file === 'index.html') {
      res.setHeader('Content-Security-Policy', SWAGGER_UI_CSP);
      res.type('html').send(pages[listener]);
      return;
    }
    if (file === 'swagger-initializer.js') {
      res.type('application/javascript').send(SWAGGER_UI_INITIALIZER);
      return;
    }
    if (!SWAGGER_UI_ASSETS.has(file)) return sendApiError(res, ApiError.notFound('no such endpoint'), logger);
    res.sendFile(swaggerUiAsset(file), (error?: Error) => {
      if (error && !res.headersSent) sendApiError(res, ApiError.notFound('no such endpoint'), logger, error);
    });
  };
}

/** The bearer token, or the password of `Authorization: Basic base64(user:password)`. */
function docsToken(req: Request): string | null {
  const basic = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(req.headers.authorization ?? '')?.[1];
  if (basic === undefined) return bearerToken(req);
  const credentials = Buffer.from(basic, 'base64').toString('utf8');
  const colon = credentials.indexOf(':');
  return colon < 0 ? null : credentials.slice(colon + 1);
}
