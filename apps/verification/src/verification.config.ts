import { IsInt, Max, Min } from 'class-validator';
import { PlatformConfig } from '@seed/platform-config';
import { IsKeyring } from '@seed/platform-secrets';

export class VerificationConfig extends PlatformConfig {
  override HEALTH_PORT = 3120;

  /** Up to 12 commands at once plus the log followers (DATABASE_POOL_SIZE, when set, still rules). */
  override DATABASE_POOL_SIZE = 16;

  /** Seals the SMS text (it holds the code) for sms-batch; the same keyring sms-batch opens with. */
  @IsKeyring()
  MESSAGE_SEALING_KEYS = '';

  /** HMAC keys of the stored code hashes; the first is current. The api-gateway needs the same keyring. */
  @IsKeyring()
  VERIFY_CODE_HASH_KEYS = '';

  /** SMS (first sends and resends) to one number in any rolling hour, across the account's sub-accounts. */
  @IsInt() @Min(1) @Max(1_000_000)
  VERIFY_MAX_PER_DESTINATION_PER_HOUR = 5;

  /** SMS (first sends and resends) of one sub-account in any rolling minute. */
  @IsInt() @Min(1) @Max(10_000_000)
  VERIFY_MAX_PER_SUBACCOUNT_PER_MINUTE = 600;

  /**
   * A generation or validation not committed within this of its issue (less 1 s for clock skew) is
   * not decided (503): the gateway has answered it 503 by then (keep it at the gateway's
   * COMMAND_TIMEOUT_MS).
   */
  @IsInt() @Min(2000) @Max(300_000)
  VERIFY_MAX_COMMAND_AGE_MS = 5_000;

  /** Commands decided at once in this process, one per partition of the 12 of the command topic. */
  @IsInt() @Min(1) @Max(12)
  VERIFY_COMMAND_CONCURRENCY = 12;

  /** How long the SMS follower waits for sms-batch before trying the same SMS again. */
  @IsInt() @Min(100) @Max(300_000)
  VERIFY_SMS_TIMEOUT_MS = 30_000;
}
