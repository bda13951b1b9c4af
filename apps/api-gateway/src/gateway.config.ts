import { IsInt, IsString, Matches, Max, Min, MinLength } from 'class-validator';
import { PlatformConfig } from '@seed/platform-config';
import { IsKeyring } from '@seed/platform-secrets';

export class GatewayConfig extends PlatformConfig {
  override HEALTH_PORT = 0; // health and metrics are served on every listener

  @IsInt() @Min(0) @Max(65535)
  MESSAGING_API_PORT = 3000;

  @IsInt() @Min(0) @Max(65535)
  AGENT_API_PORT = 3001;

  @IsInt() @Min(0) @Max(65535)
  ADMIN_API_PORT = 3002;

  /** Interface the listeners bind to. */
  @IsString()
  HTTP_HOST = '0.0.0.0';

  /** Operator secret of the admin API (`Authorization: Bearer <ADMIN_TOKEN>`). */
  @IsString()
  @MinLength(16, { message: 'ADMIN_TOKEN must be set, at least 16 characters' })
  ADMIN_TOKEN = '';

  /** Largest accepted request body; 10,000 personalised messages fit well within the default. */
  @Matches(/^\d+(b|kb|mb)$/i)
  BODY_LIMIT = '16mb';

  /** How long a request waits for the owning service's answer before a 503. */
  @IsInt() @Min(100) @Max(300_000)
  COMMAND_TIMEOUT_MS = 30_000;

  /**
   * Requests per second each sub-account may make on the messaging and agent APIs, across all
   * gateway replicas; an account's own limit (admin API) takes precedence.
   */
  @IsInt() @Min(1) @Max(1_000_000)
  RATE_LIMIT_PER_SECOND = 1_800;

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
