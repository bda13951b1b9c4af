import { randomUUID } from 'node:crypto';
import { ApiErrorCode, type ApiErrorBody } from '@seed/contracts';

/** Any failure the gateway answers with: one status, one contract code, one human message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
    readonly retryAfterSeconds?: number,
    /** The methods the path has, for the `Allow` header of a 405. */
    readonly allow?: readonly string[],
  ) {
    super(message);
  }

  static badRequest(message: string, code: number = ApiErrorCode.InvalidParameter): ApiError {
    return new ApiError(400, code, message);
  }
  static unauthorized(message = 'missing, unknown or revoked API key'): ApiError {
    return new ApiError(401, ApiErrorCode.Unauthorized, message);
  }
  static notFound(message = 'resource not found'): ApiError {
    return new ApiError(404, ApiErrorCode.NotFound, message);
  }
  /** A path the listener has, asked with a method it does not have (RFC 9110: 405 with `Allow`). */
  static methodNotAllowed(method: string, allow: readonly string[]): ApiError {
    return new ApiError(405, ApiErrorCode.InvalidParameter, `method ${method} not allowed; allowed: ${allow.join(', ')}`, undefined, allow);
  }
  static unavailable(message: string, retryAfterSeconds = 5): ApiError {
    return new ApiError(503, ApiErrorCode.InternalError, message, retryAfterSeconds);
  }

  toBody(): ApiErrorBody {
    return { code: this.code, message: this.message, errorId: randomUUID(), timestamp: new Date().toISOString() };
  }
}
