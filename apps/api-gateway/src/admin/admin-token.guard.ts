import { createHash, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable, Optional, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';
import { ApiErrorCode } from '@seed/contracts';
import { bearerToken } from '../accounts/api-key.guard';
import { GatewayConfig } from '../gateway.config';
import { ApiError } from '../http/api-error';
import { listenerOfRequest } from '../http/http-listeners';
import { sendApiError } from '../http/send-api-error';
import { FailedAuthLimiter } from './failed-auth-limiter';

/** What an admin credential may open: the admin API, or only /metrics (ADMIN_TOKEN or METRICS_TOKEN). */
export type AdminScope = 'admin' | 'metrics';

/**
 * The admin API answers only to the operator secret, compared in constant time. Failed attempts
 * are counted per client address (FailedAuthLimiter): past the limit, every attempt from that
 * address, right or wrong, is answered 429 with `Retry-After` until the window frees it.
 */
@Injectable()
export class AdminTokenGuard implements CanActivate {
  private readonly expected: Buffer;
  private readonly metricsOnly: Buffer | null;

  constructor(
    @Inject(GatewayConfig) config: GatewayConfig,
    @Optional() @Inject(FailedAuthLimiter) readonly failures: FailedAuthLimiter = new FailedAuthLimiter(config.ADMIN_AUTH_FAILURES_PER_MINUTE),
  ) {
    this.expected = digest(config.ADMIN_TOKEN);
    this.metricsOnly = config.METRICS_TOKEN ? digest(config.METRICS_TOKEN) : null;
  }

  canActivate(context: ExecutionContext): boolean {
    this.authenticate(context.switchToHttp().getRequest<Request>());
    return true;
  }

  /** Throws the contract's 429 for an address over its failures, 401 for a wrong token (and counts it). */
  authenticate(req: Request, scope: AdminScope = 'admin', token: string | null = bearerToken(req)): void {
    const client = clientAddress(req);
    const wait = this.failures.retryAfterSeconds(client);
    if (wait > 0) {
      throw new ApiError(429, ApiErrorCode.TooManyRequests, 'too many failed admin authentications from this address; try again later', wait);
    }
    if (!this.accepts(token, scope)) {
      this.failures.recordFailure(client);
      throw new ApiError(401, ApiErrorCode.Unauthorized, 'missing or wrong admin token');
    }
  }

  /** Whether `token` is the operator secret (or, for `metrics`, the scrape token); no counting. */
  accepts(token: string | null, scope: AdminScope = 'admin'): boolean {
    if (token === null) return false;
    const presented = digest(token);
    // Both compared, so that which one matched does not show in the time taken.
    const admin = timingSafeEqual(presented, this.expected);
    const metrics = this.metricsOnly !== null && timingSafeEqual(presented, this.metricsOnly);
    return admin || (scope === 'metrics' && metrics);
  }

  /** `accepts` through the limiter, for the admin listener's API docs: false when refused either way. */
  admits(req: Request, token: string | null): boolean {
    try {
      this.authenticate(req, 'admin', token);
      return true;
    } catch {
      return false;
    }
  }
}

/**
 * Authenticates the admin listener's API and /metrics before anything reads the body: a request
 * without the token costs a hash and a map look-up. The controllers' guard checks again.
 */
export function adminAuthentication(guard: AdminTokenGuard, logger: Logger) {
  return (req: Request, res: Response, next: NextFunction): void => {
    if (listenerOfRequest(req) !== 'admin') return next();
    const scope: AdminScope | null = req.path === '/metrics' ? 'metrics' : req.path.startsWith('/admin/') || req.path === '/admin' ? 'admin' : null;
    if (scope === null) return next();
    try {
      guard.authenticate(req, scope);
    } catch (error) {
      if (error instanceof ApiError) return sendApiError(res, error, logger);
      throw error;
    }
    next();
  };
}

/** The peer's address: the admin listener is reached directly (port-forward, in-cluster), not through a proxy. */
function clientAddress(req: Request): string {
  return req.socket?.remoteAddress ?? 'unknown';
}

// Hashing first gives equal-length buffers, so the comparison leaks neither content nor length.
function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}
