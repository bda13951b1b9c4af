import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import type { Logger } from 'pino';
import { ApiErrorCode } from '@seed/contracts';
import { ApiError } from './api-error';
import { allowedMethods } from './method-not-allowed.middleware';
import { sendApiError } from './send-api-error';

const JSON_TYPE = /^application\/([a-z0-9.+-]*\+)?json\s*(;|$)/i;

/**
 * Parses JSON bodies before Nest sees the request, so that content-type, size and syntax errors
 * get the contract's error body (415, 413, 400) instead of the framework's defaults. Runs after
 * the API key is checked (api-key-first.middleware.ts): an unauthenticated request reads no body.
 */
export function jsonBody(limit: string, logger: Logger): RequestHandler {
  const parse = express.json({ limit, strict: true, type: () => true, reviver: refuseLoneSurrogates });
  return (req: Request, res: Response, next: NextFunction) => {
    if (!hasBody(req)) return next();
    // No route has the path (a 404 follows): its body is not read (a large one: the connection closes).
    if (allowedMethods(req).length === 0) {
      closeUnreadBody(req, res);
      return next();
    }
    const type = req.headers['content-type'] ?? '';
    if (!JSON_TYPE.test(type)) {
      return sendApiError(res, new ApiError(415, ApiErrorCode.InvalidParameter, 'Content-Type must be application/json'), logger);
    }
    parse(req, res, (error?: unknown) => {
      if (error) return sendApiError(res, bodyError(error, limit), logger);
      next();
    });
  };
}

const LONE_SURROGATE = /\p{Cs}/u;
const LONE_SURROGATE_MESSAGE = 'request body is not valid Unicode: a string has an unpaired \\uD800-\\uDFFF escape';

/**
 * JSON may escape half a surrogate pair ("\uD83D"); such a string is not Unicode text, cannot be
 * sent as an SMS, and Postgres refuses it in jsonb, so it would fail as a 500 deep in a service.
 */
function refuseLoneSurrogates(_key: string, value: unknown): unknown {
  if (typeof value === 'string' && LONE_SURROGATE.test(value)) throw new SyntaxError(LONE_SURROGATE_MESSAGE);
  // Postgres text and jsonb cannot hold U+0000, and no SMS carries it.
  if (typeof value === 'string' && value.includes('\u0000')) throw new SyntaxError(NUL_MESSAGE);
  return value;
}

const NUL_MESSAGE = 'request body is not valid: a string contains U+0000';

/** Bodies up to this size are read and dropped after an early answer (the connection is kept). */
const DRAINED_BYTES = 64 * 1024;

/**
 * For a request answered without reading its body: one that may be large (chunked, or over 64 KiB)
 * gets `Connection: close`, and its socket is destroyed as soon as the answer is handed to the
 * kernel, so that the rest is never read; a small one is drained by Node after the answer, keeping
 * the connection. Without the destroy, Node drains the unread body until its graceful close
 * completes (`req._dump()` after the response), and under a flood of refused 16 MB posts the
 * gateway took in megabytes per refusal (docs/adr/0043-unauthenticated-work-bounded.md).
 */
export function closeUnreadBody(req: Request, res: Response): void {
  const length = Number(req.headers['content-length'] ?? NaN);
  if (req.headers['transfer-encoding'] === undefined && length <= DRAINED_BYTES) return;
  res.setHeader('Connection', 'close');
  res.once('finish', () => req.socket.destroy());
}

/** Whether the request says a body follows (a length above 0, or a chunked one). */
export function hasBody(req: Request): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

function bodyError(error: unknown, limit: string): ApiError {
  const type = (error as { type?: string }).type;
  switch (type) {
    case 'entity.too.large':
      return new ApiError(413, ApiErrorCode.InvalidParameter, `request body is larger than ${limit}`);
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new ApiError(415, ApiErrorCode.InvalidParameter, 'request body must be UTF-8 JSON');
    default:
      if ((error as { message?: string }).message === LONE_SURROGATE_MESSAGE) return ApiError.badRequest(LONE_SURROGATE_MESSAGE);
      if ((error as { message?: string }).message === NUL_MESSAGE) return ApiError.badRequest(NUL_MESSAGE);
      return ApiError.badRequest('request body is not valid JSON');
  }
}
