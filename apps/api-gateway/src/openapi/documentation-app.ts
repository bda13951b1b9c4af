import { randomBytes } from 'node:crypto';
import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { loadConfig } from '@seed/platform-config';
import { createLogger } from '@seed/platform-logging';
import { GatewayConfig } from '../gateway.config';
import { GatewayModule } from '../gateway.module';
import { buildListenerDocuments, type ListenerDocuments } from './openapi-documents';

/**
 * Settings that only have to pass validation: in preview mode Nest reads the module graph
 * without instantiating a provider, so nothing connects to PostgreSQL or Kafka.
 */
const PLACEHOLDER_ENV = {
  DATABASE_URL: 'postgres://docs@127.0.0.1:1/docs',
  KAFKA_BROKERS: '127.0.0.1:1',
  ADMIN_TOKEN: randomBytes(24).toString('hex'), // a strong one: placeholders are refused
  MESSAGE_SEALING_KEYS: `docs:${Buffer.alloc(32).toString('base64')}`,
  VERIFY_CODE_HASH_KEYS: `docs:${Buffer.alloc(32).toString('base64')}`,
  LOG_LEVEL: 'silent',
};

/**
 * The listener documents of the gateway's own module, without a running stack: what
 * `npm run openapi` writes and the drift test compares with the committed copies. The running
 * gateway builds the same from its started module (main.ts).
 */
export async function documentsWithoutInfrastructure(): Promise<ListenerDocuments> {
  const config = loadConfig(GatewayConfig, PLACEHOLDER_ENV);
  const logger = createLogger('api-gateway', 'silent');
  const app: INestApplication = await NestFactory.create(GatewayModule.register(config, logger), { preview: true, logger: false, abortOnError: false });
  try {
    return buildListenerDocuments(app, GatewayModule);
  } finally {
    await app.close();
  }
}
