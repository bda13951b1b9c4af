import { createHash, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import { ApiErrorCode } from '@seed/contracts';
import { bearerToken } from '../accounts/api-key.guard';
import { GatewayConfig } from '../gateway.config';
import { ApiError } from '../http/api-error';

/** The admin API answers only to the operator secret, compared in constant time. */
@Injectable()
export class AdminTokenGuard implements CanActivate {
  private readonly expected: Buffer;

  constructor(@Inject(GatewayConfig) config: GatewayConfig) {
    this.expected = digest(config.ADMIN_TOKEN);
  }

  canActivate(context: ExecutionContext): boolean {
    if (!this.accepts(bearerToken(context.switchToHttp().getRequest<Request>()))) {
      throw new ApiError(401, ApiErrorCode.Unauthorized, 'missing or wrong admin token');
    }
    return true;
  }

  /** Whether `token` is the operator secret; also asked by the admin listener's API docs. */
  accepts(token: string | null): boolean {
    return token !== null && timingSafeEqual(digest(token), this.expected);
  }
}

// Hashing first gives equal-length buffers, so the comparison leaks neither content nor length.
function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}
