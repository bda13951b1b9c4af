import { once } from 'node:events';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import type { Logger } from 'pino';
import { LOGGER, SubscriptionRegistry } from '@seed/platform-nest';
import { FollowerThreadMessage, type WakeForMessage } from './follower-thread.messages';

const STOP_TIMEOUT_MS = 15_000;

/**
 * Runs sms-batch's followers (read models, outbound queue, relay to the event topic) on a worker
 * thread of their own. On one event loop, following the log took about a third of the time the
 * sender needs for submits and receipts, and receipts are answered to the carrier no faster than
 * that loop turns. The main thread's appends wake the thread's followers as they would local ones.
 * If the thread dies, the service exits, so that the orchestrator restarts the whole of it.
 */
@Injectable()
export class FollowerThread implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private worker: Worker | undefined;
  private stopping = false;
  /** What the next wake message says: nothing queued, every follower (null), or these types. */
  private queuedWake: Set<string> | null | undefined;

  constructor(
    private readonly subscriptions: SubscriptionRegistry,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const worker = new Worker(join(__dirname, 'followers.worker.js'));
    this.worker = worker;
    worker.on('error', (error) => this.logger.fatal({ err: error }, 'follower thread failed'));
    worker.on('exit', (code) => {
      if (this.stopping) return;
      this.logger.fatal({ code }, 'follower thread ended; stopping the service');
      process.exit(1);
    });
    const [message] = (await once(worker, 'message')) as [unknown];
    if (message !== FollowerThreadMessage.Ready) throw new Error(`follower thread said ${String(message)} instead of ready`);
    this.subscriptions.onWake((types) => this.wake(types));
    this.logger.info('followers running on their own thread');
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    const worker = this.worker;
    if (!worker) return;
    const exited = once(worker, 'exit');
    worker.postMessage(FollowerThreadMessage.Stop);
    const timer = setTimeout(() => void worker.terminate(), STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  }

  /** One message per turn of the loop, however many appends committed in it, with all their types. */
  private wake(types: readonly string[] | null): void {
    const first = this.queuedWake === undefined;
    if (types === null) this.queuedWake = null;
    else if (this.queuedWake !== null) {
      this.queuedWake ??= new Set();
      for (const type of types) this.queuedWake.add(type);
    }
    if (!first) return;
    setImmediate(() => {
      const queued = this.queuedWake;
      this.queuedWake = undefined;
      this.worker?.postMessage(queued ? ({ wakeFor: [...queued] } satisfies WakeForMessage) : FollowerThreadMessage.Wake);
    });
  }
}
