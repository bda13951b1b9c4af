import { IsInt, IsString, Max, Min, ValidateBy } from 'class-validator';
import { PlatformConfig } from '@seed/platform-config';
import { IsKeyring } from '@seed/platform-secrets';
import { parseAllowedHosts } from '@seed/webhook-dispatcher-domain';

const IsAllowedHosts = () =>
  ValidateBy({
    name: 'isAllowedHosts',
    validator: {
      validate(value: unknown): boolean {
        if (typeof value !== 'string') return false;
        try {
          parseAllowedHosts(value);
          return true;
        } catch {
          return false;
        }
      },
      defaultMessage: () => 'WEBHOOK_ALLOWED_HOSTS must be a comma-separated list of host[:port] (IPv6 in brackets: [::1]:8080)',
    },
  });

export class WebhookDispatcherConfig extends PlatformConfig {
  override HEALTH_PORT = 3140;

  /** Keyring that seals the accounts' signing secrets at rest (`kid:base64key,...`, first key current). */
  @IsKeyring()
  WEBHOOK_SECRET_SEALING_KEYS = '';

  /** The keyring the services share for what crosses Kafka sealed: here the secrets in answers to the gateway. */
  @IsKeyring()
  MESSAGE_SEALING_KEYS = '';

  /** Exceptions to the address check: `host[:port]` as written in callback URLs (e.g. `127.0.0.1,hooks.internal:8443`). */
  @IsString() @IsAllowedHosts()
  WEBHOOK_ALLOWED_HOSTS = '';

  /** A request without a complete 2xx answer within this time is a failed attempt. */
  @IsInt() @Min(100) @Max(120_000)
  WEBHOOK_TIMEOUT_MS = 10_000;

  /** Cap of the first retry delay (full jitter); doubles per attempt up to WEBHOOK_RETRY_MAX_DELAY_MS. */
  @IsInt() @Min(10) @Max(3_600_000)
  WEBHOOK_RETRY_BASE_MS = 1000;

  @IsInt() @Min(10) @Max(86_400_000)
  WEBHOOK_RETRY_MAX_DELAY_MS = 3_600_000;

  /** How long a delivery is retried (from its scheduling or last re-drive) before it is dead-lettered. */
  @IsInt() @Min(100) @Max(30 * 86_400_000)
  WEBHOOK_RETRY_MAX_AGE_MS = 86_400_000;

  /** Deliveries held by one dispatcher at once (in flight or waiting for their endpoint). */
  @IsInt() @Min(1) @Max(10_000)
  WEBHOOK_MAX_IN_FLIGHT = 512;

  /** Requests in flight to one endpoint (scheme, host and port) at once, across all replicas (shared in PostgreSQL). */
  @IsInt() @Min(1) @Max(1000)
  WEBHOOK_ENDPOINT_CONCURRENCY = 32;

  /** Consecutive failures that open an endpoint's circuit breaker (one breaker per endpoint for all replicas). */
  @IsInt() @Min(1) @Max(10_000)
  WEBHOOK_BREAKER_FAILURES = 5;

  /** How long an open breaker sends nothing to its endpoint before one probe. */
  @IsInt() @Min(10) @Max(3_600_000)
  WEBHOOK_BREAKER_COOLDOWN_MS = 30_000;

  /**
   * How long a claim holds a delivery; a dispatcher that dies gives its deliveries back after this.
   * It must leave room for a whole request: a delivery is not started once its lease has less than
   * the timeout and a second left (so two dispatchers never send it at once).
   */
  @IsInt() @Min(1000) @Max(3_600_000)
  @ValidateBy({
    name: 'leaseExceedsTimeout',
    validator: {
      validate: (value: unknown, args) => typeof value === 'number' && value >= (args?.object as WebhookDispatcherConfig).WEBHOOK_TIMEOUT_MS + 2000,
      defaultMessage: () => 'WEBHOOK_LEASE_MS must be at least WEBHOOK_TIMEOUT_MS + 2000',
    },
  })
  WEBHOOK_LEASE_MS = 60_000;

  /** Pause between looks for due deliveries when there is nothing to do (new work wakes it at once). */
  @IsInt() @Min(5) @Max(10_000)
  WEBHOOK_IDLE_MS = 200;

  /** After a rotation, how long the previous signing secret still signs (both are sent). */
  @IsInt() @Min(0) @Max(30 * 86_400_000)
  WEBHOOK_SECRET_OVERLAP_MS = 86_400_000;

  /**
   * A final status change (delivered, undelivered, rejected) with somewhere to go that neither
   * became a delivery nor was posted this long after it was published is reported as unreported
   * (`webhook_dispatcher_unreported_final_statuses`, alert WebhookFinalStatusUnreported). Longer
   * than the intake is ever expected to lag behind sms-batch's topic.
   */
  @IsInt() @Min(10_000) @Max(7 * 86_400_000)
  WEBHOOK_RECONCILE_AFTER_MS = 900_000;
}
