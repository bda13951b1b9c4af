import { PlatformConfig } from '@seed/platform-config';

export class VerificationConfig extends PlatformConfig {
  override HEALTH_PORT = 3120;
}
