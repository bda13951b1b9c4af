import { NestFactory, type AbstractHttpAdapter } from '@nestjs/core';
import type { DynamicModule, INestApplication } from '@nestjs/common';
import type { Logger } from 'pino';
import { MessageProducer, KafkaCommandServer, KafkaConnection } from '@seed/platform-kafka';
import { isPermanentDatabaseError } from '@seed/platform-event-store';
import { NestLoggerAdapter } from '@seed/platform-logging';
import { StartDeadline } from './start-up/start-deadline';
import { StartingListener } from './start-up/starting-listener';

export interface BootstrapOptions {
  module: DynamicModule;
  logger: Logger;
  healthPort: number;
  /** When given, the service consumes this command topic with `@MessagePattern` handlers. */
  commands?: { topic: string; groupId: string; concurrency?: number; limitedTopics?: Readonly<Record<string, readonly string[]>> };
}

/**
 * Starts a service the same way everywhere: the health/metrics listener opens first (alive, not
 * ready), modules initialise (migrations, topics) while PostgreSQL and Kafka get ready, the command
 * consumer joins its group, and only then does the listener serve the application. SIGTERM closes
 * them in reverse, letting the command in hand finish before the consumer leaves the group.
 */
export async function bootstrapService(options: BootstrapOptions): Promise<INestApplication> {
  const { logger } = options;
  const listener = new StartingListener();
  await listener.listen(options.healthPort, '0.0.0.0');
  // abortOnError false: a failed start reaches main's catch (one error, exit 1) instead of process.abort().
  const app = await NestFactory.create(options.module, { logger: new NestLoggerAdapter(logger), bufferLogs: false, abortOnError: false });
  app.enableShutdownHooks();
  await app.init();
  if (options.commands) {
    const deadline = app.get(StartDeadline);
    app.connectMicroservice(
      {
        strategy: new KafkaCommandServer({
          connection: app.get(KafkaConnection),
          producer: app.get(MessageProducer),
          logger,
          isPermanent: isPermanentDatabaseError,
          retryStart: (what, step) => deadline.retry(what, step),
          ...options.commands,
        }),
      },
      { inheritAppConfig: true },
    );
    await app.startAllMicroservices();
  }
  // The application's own HTTP server never listens: this one serves it, and closes with it.
  const http = app.getHttpAdapter() as AbstractHttpAdapter;
  http.setHttpServer(listener.server);
  listener.serve(http.getInstance());
  logger.info({ healthPort: options.healthPort }, 'service started');
  return app;
}
