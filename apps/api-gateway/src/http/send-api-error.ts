import type { Response } from 'express';
import type { Logger } from 'pino';
import type { ApiError } from './api-error';

/** Writes the contract's error body; 5xx are logged with their errorId so operators can find them. */
export function sendApiError(res: Response, error: ApiError, logger: Logger, cause?: unknown): void {
  const body = error.toBody();
  if (error.status >= 500) logger.error({ err: cause ?? error, errorId: body.errorId, status: error.status }, error.message);
  else logger.info({ errorId: body.errorId, status: error.status, code: error.code }, error.message);
  if (error.retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(error.retryAfterSeconds));
  if (error.allow !== undefined) res.setHeader('Allow', error.allow.join(', '));
  res.status(error.status).json(body);
}
