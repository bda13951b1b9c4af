import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { loadConfig, withLibpqSslModes } from '@seed/platform-config';
import { EventStore, replayProjection } from '@seed/platform-event-store';
import { createLogger } from '@seed/platform-logging';
import { SmsBatchConfig } from './sms-batch.config';
import { smsBatchProjections, smsBatchService } from './sms-batch.service';

/** Rebuilds every read model of sms-batch from its event log (`npm run replay -- sms-batch`). */
async function main(): Promise<void> {
  const config = loadConfig(SmsBatchConfig);
  const logger = createLogger('sms-batch-replay', config.LOG_LEVEL);
  const schema = `${config.DATABASE_SCHEMA_PREFIX}${smsBatchService.schema}`;
  const dataSource = await new DataSource({ type: 'postgres', url: withLibpqSslModes(config.DATABASE_URL) }).initialize();
  try {
    const store = new EventStore(schema, smsBatchService.upcasters);
    for (const projection of smsBatchProjections(schema)) {
      const started = Date.now();
      const events = await replayProjection(dataSource, store, projection, logger);
      logger.info({ projection: projection.name, events, ms: Date.now() - started }, 'read model rebuilt');
    }
  } finally {
    await dataSource.destroy();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
