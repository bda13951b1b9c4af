// Entry point of sms-batch's follower thread (see FollowerThread): the read-model projections and
// the relay to the event topic, with connections of their own, on a second event loop.
// A thread loads its modules anew: tracing is started here too, first (see ../tracing.ts).
import '../tracing';
import 'reflect-metadata';
import { parentPort } from 'node:worker_threads';
import { NestFactory } from '@nestjs/core';
import { loadConfig } from '@seed/platform-config';
import { createLogger, NestLoggerAdapter } from '@seed/platform-logging';
import { SubscriptionRegistry } from '@seed/platform-nest';
import { SmsBatchConfig } from '../sms-batch.config';
import { SmsBatchFollowersModule } from './followers.module';
import { FollowerThreadMessage, isWakeFor } from './follower-thread.messages';

async function run(): Promise<void> {
  const port = parentPort;
  if (!port) throw new Error('followers.worker runs as a worker thread of sms-batch');
  const config = loadConfig(SmsBatchConfig);
  const logger = createLogger('sms-batch', config.LOG_LEVEL).child({ thread: 'followers' });
  const app = await NestFactory.createApplicationContext(SmsBatchFollowersModule.register(config, logger), {
    logger: new NestLoggerAdapter(logger),
    bufferLogs: false,
  });
  await app.init();
  const subscriptions = app.get(SubscriptionRegistry);
  port.on('message', (message: unknown) => {
    if (message === FollowerThreadMessage.Wake) subscriptions.wakeAll();
    else if (isWakeFor(message)) subscriptions.wakeFor(message.wakeFor);
    else if (message === FollowerThreadMessage.Stop) {
      // Followers finish their batch, the producer flushes, connections close; then the thread ends.
      void app.close().then(() => port.close());
    }
  });
  port.postMessage(FollowerThreadMessage.Ready);
}

run().catch((error: unknown) => {
  console.error(error);
  process.exit(1); // in a worker thread: ends the thread, and the service sees it exit
});
