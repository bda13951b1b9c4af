import { PlatformConfig } from '@seed/platform-config';

export class AgentTokenConfig extends PlatformConfig {
  override HEALTH_PORT = 3130;
}
