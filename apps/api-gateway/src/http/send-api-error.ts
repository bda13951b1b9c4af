import type { Response } from 'express';
import type { Logger } from 'pino';
import type { ApiError } from './api-error';

/**
 * Writes the contract's error body; 5xx are logged with their errorId so operators can find them
 * (a 500 as an error, a 503 as a warning).
 * A 401 (no valid API key) is logged at debug: under a flood of unauthenticated requests a line
 * each was a tenth of the gateway's refusal work, and the requests are counted anyway
 * (`http_server_request_duration_seconds{status_class="4xx"}`).
 */
export function sendApiError(res: Response, error: ApiError, logger: Logger, cause?: unknown): void {
  const body = error.toBody();
  // A 503 is a dependency away (a broker or database restart), answered with Retry-After and
  // counted: a warning. Its outage is logged once where it is found; a 500 is a fault to look at.
  if (error.status === 503) logger.warn({ err: cause ?? error, errorId: body.errorId, status: error.status }, error.message);
  else if (error.status >= 500) logger.error({ err: cause ?? error, errorId: body.errorId, status: error.status }, error.message);
  else if (error.status === 401) logger.debug({ errorId: body.errorId, status: error.status, code: error.code }, error.message);
  else logger.info({ errorId: body.errorId, status: error.status, code: error.code }, error.message);
  if (error.retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(error.retryAfterSeconds));
  if (error.allow !== undefined) res.setHeader('Allow', error.allow.join(', '));
  res.status(error.status).json(body);
}
