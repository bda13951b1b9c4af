import { ArgumentsHost, Catch, HttpException, Inject, type ExceptionFilter } from '@nestjs/common';
import type { Response } from 'express';
import type { Logger } from 'pino';
import { ApiErrorCode } from '@seed/contracts';
import { LOGGER } from '@seed/platform-nest';
import { ApiError } from './api-error';
import { sendApiError } from './send-api-error';

/** The one place where failures become HTTP: every status >= 400 carries the contract's error body. */
@Catch()
export class ApiExceptionFilter implements ExceptionFilter {
  constructor(@Inject(LOGGER) private readonly logger: Logger) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<Response>();
    sendApiError(res, toApiError(exception), this.logger, exception);
  }
}

export function toApiError(exception: unknown): ApiError {
  if (exception instanceof ApiError) return exception;
  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    if (status === 404) return ApiError.notFound('no such endpoint');
    if (status === 405) return new ApiError(405, ApiErrorCode.InvalidParameter, 'method not allowed');
    return new ApiError(status, status >= 500 ? ApiErrorCode.InternalError : ApiErrorCode.InvalidParameter, exception.message);
  }
  if (isDatabaseUnavailable(exception)) return ApiError.unavailable('the database is unavailable');
  return new ApiError(500, ApiErrorCode.InternalError, 'internal error');
}

function isDatabaseUnavailable(error: unknown): boolean {
  const e = error as { code?: string; message?: string };
  return (
    ['ECONNREFUSED', 'ECONNRESET', '57P01', '57P03', '53300'].includes(e?.code ?? '') ||
    /Connection terminated|connect ECONNREFUSED|timeout exceeded when trying to connect/.test(e?.message ?? '')
  );
}
