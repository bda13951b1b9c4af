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
    const token = bearerToken(context.switchToHttp().getRequest<Request>());
    if (!token || !timingSafeEqual(digest(token), this.expected)) {
      throw new ApiError(401, ApiErrorCode.Unauthorized, 'missing or wrong admin token');
    }
    return true;
  }
}

// Hashing first gives equal-length buffers, so the comparison leaks neither content nor length.
function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}
