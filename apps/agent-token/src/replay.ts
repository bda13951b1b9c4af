import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { loadConfig, PlatformConfig, withLibpqSslModes } from '@seed/platform-config';
import { EventStore, replayProjection } from '@seed/platform-event-store';
import { createLogger } from '@seed/platform-logging';
import { agentTokenService } from './agent-token.service';
import { RoomsProjection } from './rooms/rooms.projection';

/** Rebuilds agent-token's read model (`rooms`) from its event log (`npm run replay -- agent-token`). Needs no keys. */
async function main(): Promise<void> {
  const config = loadConfig(PlatformConfig);
  const logger = createLogger('agent-token-replay', config.LOG_LEVEL);
  const schema = `${config.DATABASE_SCHEMA_PREFIX}${agentTokenService.schema}`;
  const dataSource = await new DataSource({ type: 'postgres', url: withLibpqSslModes(config.DATABASE_URL) }).initialize();
  try {
    const started = Date.now();
    const projection = new RoomsProjection(schema);
    const events = await replayProjection(dataSource, new EventStore(schema, agentTokenService.upcasters), projection, logger);
    logger.info({ projection: projection.name, events, ms: Date.now() - started }, 'read model rebuilt');
  } finally {
    await dataSource.destroy();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
