import { PlatformConfig } from '@seed/platform-config';

export class WebhookDispatcherConfig extends PlatformConfig {
  override HEALTH_PORT = 3140;
}
