import { Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { Counter } from 'prom-client';
import { DataSource } from 'typeorm';
import { ApiErrorCode } from '@seed/contracts';
import { ServiceSchema } from '@seed/platform-nest';
import { GatewayConfig } from '../gateway.config';
import { ApiError } from '../http/api-error';
import { RequestCountsStore } from './request-counts.store';
import { RequestRateLimiter } from './request-rate-limiter';

const refused = new Counter({
  name: 'gateway_rate_limited_requests_total',
  help: 'Requests refused with 429 because their sub-account was over its request rate',
});

/** Counts older than this many seconds are deleted from the shared table, this often. */
const KEEP_SECONDS = 10;

/**
 * Per-sub-account request rate limits shared by the gateway replicas (see `RequestRateLimiter`):
 * most requests are admitted from this replica's lease without I/O; one in a twentieth of the limit
 * (and the first of a sub-account's second) leases more with one statement.
 */
@Injectable()
export class RequestRateLimits implements OnModuleInit, OnApplicationShutdown {
  private readonly store: RequestCountsStore;
  private readonly limiter: RequestRateLimiter;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly config: GatewayConfig,
    dataSource: DataSource,
    schema: ServiceSchema,
  ) {
    this.store = new RequestCountsStore(dataSource, schema.name);
    this.limiter = new RequestRateLimiter((key, second, wanted, limit) => this.store.lease(key, second, wanted, limit));
  }

  /** Throws the contract's 429 (code 1600, `Retry-After`) when the sub-account is over its limit. */
  async admit(subAccountId: string, accountLimit: number | null): Promise<void> {
    const limit = accountLimit ?? this.config.RATE_LIMIT_PER_SECOND;
    const admission = await this.limiter.admit(subAccountId, limit, Date.now());
    if (admission.admitted) return;
    refused.inc();
    throw new ApiError(429, ApiErrorCode.TooManyRequests, `too many requests: sub-account ${subAccountId} is limited to ${limit} requests per second`, admission.retryAfterSeconds);
  }

  onModuleInit(): void {
    this.timer = setInterval(() => {
      const now = Date.now();
      this.limiter.prune(now);
      // A failed clean-up is retried at the next tick; the rows are small and few.
      this.store.forgetBefore(Math.floor(now / 1000) - KEEP_SECONDS).catch(() => undefined);
    }, KEEP_SECONDS * 1000);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }
}
