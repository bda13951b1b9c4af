import { IsInt, IsString, Matches, Max, Min, MinLength } from 'class-validator';
import { PlatformConfig } from '@seed/platform-config';
import { IsKeyring } from '@seed/platform-secrets';
import { IsStrongToken } from './admin/token-strength';

export class GatewayConfig extends PlatformConfig {
  override HEALTH_PORT = 0; // probes are served on every listener, /metrics on the admin one

  @IsInt() @Min(0) @Max(65535)
  MESSAGING_API_PORT = 3000;

  @IsInt() @Min(0) @Max(65535)
  AGENT_API_PORT = 3001;

  @IsInt() @Min(0) @Max(65535)
  ADMIN_API_PORT = 3002;

  /** Interface the messaging and agent listeners bind to. */
  @IsString()
  HTTP_HOST = '0.0.0.0';

  /**
   * Interface the admin listener binds to: loopback unless set, so that the operator API and
   * /metrics are not reachable from the network by accident (Kubernetes sets 0.0.0.0 for its probes
   * and Prometheus).
   */
  @IsString() @MinLength(1)
  ADMIN_HTTP_HOST = '127.0.0.1';

  /**
   * Operator secret of the admin API (`Authorization: Bearer <ADMIN_TOKEN>`). At least 128 bits of
   * entropy (e.g. `openssl rand -hex 24`); documented placeholders and patterns are refused at start.
   */
  @IsString()
  @IsStrongToken()
  ADMIN_TOKEN = '';

  /**
   * Optional scrape-only secret: opens the admin listener's /metrics and nothing else, so that
   * Prometheus need not hold ADMIN_TOKEN. Same strength rules; '' means only ADMIN_TOKEN opens it.
   */
  @IsString()
  @IsStrongToken({ optional: true })
  METRICS_TOKEN = '';

  /** Failed admin authentications (admin API, /metrics, admin docs) a client address may make a minute before a 429. */
  @IsInt() @Min(1) @Max(1_000_000)
  ADMIN_AUTH_FAILURES_PER_MINUTE = 10;

  /** Largest accepted request body; 10,000 personalised messages fit well within the default. */
  @Matches(/^\d+(b|kb|mb)$/i)
  BODY_LIMIT = '16mb';

  /**
   * How long a request waits for the owning service's answer before a 503 (which then means "not
   * done": the services commit nothing later than this less 1 s). It bounds what a request caught
   * by an outage waits, so it is short; keep the services' *_MAX_COMMAND_AGE_MS equal to it.
   */
  @IsInt() @Min(100) @Max(300_000)
  COMMAND_TIMEOUT_MS = 5_000;

  /**
   * Requests per second each sub-account may make on the messaging and agent APIs, across all
   * gateway replicas; an account's own limit (admin API) takes precedence.
   */
  @IsInt() @Min(1) @Max(1_000_000)
  RATE_LIMIT_PER_SECOND = 1_800;

  /**
   * Agent logins (`POST /api/v1/sessions`, no API key) a client address may make a minute on each
   * gateway replica, and at once (`_BURST`); over it a 429. The address is the TCP peer's.
   */
  @IsInt() @Min(1) @Max(1_000_000)
  AGENT_LOGIN_PER_MINUTE = 30;

  @IsInt() @Min(1) @Max(1_000_000)
  AGENT_LOGIN_BURST = 20;

  /** Guest page loads (`GET /guest/{token}`; a waiting page reloads every 5 s) per client address a minute, and at once. */
  @IsInt() @Min(1) @Max(1_000_000)
  GUEST_PAGE_PER_MINUTE = 120;

  @IsInt() @Min(1) @Max(1_000_000)
  GUEST_PAGE_BURST = 60;

  /** Seals the tokens the agent API forwards to agent-token and opens its answers (shared keyring). */
  @IsKeyring()
  MESSAGE_SEALING_KEYS = '';

  /**
   * How long the gateway may reuse an API key's admission (its account, sub-account and rate limit)
   * without reading it again. Revocations and rate-limit changes end them on every replica when
   * they commit; this bounds an entry's life on top of that. 0: every request reads the database.
   */
  @IsInt() @Min(0) @Max(3_600_000)
  API_KEY_CACHE_MS = 60_000;

  /** Hashes presented verification codes before they cross Kafka; the verification service's keyring. */
  @IsKeyring()
  VERIFY_CODE_HASH_KEYS = '';
}
