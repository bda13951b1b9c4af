import { PlatformConfig } from '@seed/platform-config';

export class SmsBatchConfig extends PlatformConfig {
  override HEALTH_PORT = 3110;
}
