import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import type { Logger } from 'pino';
import { ApiErrorCode } from '@seed/contracts';
import { ApiError } from './api-error';
import { sendApiError } from './send-api-error';

const JSON_TYPE = /^application\/([a-z0-9.+-]*\+)?json\s*(;|$)/i;

/**
 * Parses JSON bodies before Nest sees the request, so that content-type, size and syntax errors
 * get the contract's error body (415, 413, 400) instead of the framework's defaults.
 */
export function jsonBody(limit: string, logger: Logger): RequestHandler {
  const parse = express.json({ limit, strict: true, type: () => true });
  return (req: Request, res: Response, next: NextFunction) => {
    if (!hasBody(req)) return next();
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

function hasBody(req: Request): boolean {
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
      return ApiError.badRequest('request body is not valid JSON');
  }
}
