import { NestFactory } from '@nestjs/core';
import type { DynamicModule, INestApplication } from '@nestjs/common';
import type { Logger } from 'pino';
import { MessageProducer, KafkaCommandServer, KafkaConnection } from '@seed/platform-kafka';
import { isPermanentDatabaseError } from '@seed/platform-event-store';
import { NestLoggerAdapter } from '@seed/platform-logging';

export interface BootstrapOptions {
  module: DynamicModule;
  logger: Logger;
  healthPort: number;
  /** When given, the service consumes this command topic with `@MessagePattern` handlers. */
  commands?: { topic: string; groupId: string; concurrency?: number };
}

/**
 * Starts a service the same way everywhere: modules initialise (migrations, topics), the command
 * consumer joins its group, the health/metrics listener opens. SIGTERM closes them in reverse,
 * letting the command in hand finish before the consumer leaves the group.
 */
export async function bootstrapService(options: BootstrapOptions): Promise<INestApplication> {
  const { logger } = options;
  const app = await NestFactory.create(options.module, { logger: new NestLoggerAdapter(logger), bufferLogs: false });
  app.enableShutdownHooks();
  await app.init();
  if (options.commands) {
    app.connectMicroservice(
      {
        strategy: new KafkaCommandServer({
          connection: app.get(KafkaConnection),
          producer: app.get(MessageProducer),
          logger,
          isPermanent: isPermanentDatabaseError,
          ...options.commands,
        }),
      },
      { inheritAppConfig: true },
    );
    await app.startAllMicroservices();
  }
  await app.listen(options.healthPort, '0.0.0.0');
  logger.info({ healthPort: options.healthPort }, 'service started');
  return app;
}
