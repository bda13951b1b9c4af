import type { Consumer, ConsumerRunConfig } from 'kafkajs';
import type { Logger } from 'pino';
import { Counter } from 'prom-client';
import { FailureStreak } from '@seed/platform-logging';

export const consumerRestarts = new Counter({
  name: 'kafka_consumer_restarts_total',
  help: 'Consumers started again by the platform after a crash that kafkajs does not restart from (a broker restart can cause one), by consumer group',
  labelNames: ['group'] as const,
});

const FIRST_DELAY_MS = 1000;
/** Kept short: a broker that comes back should see every consumer again within seconds. */
const MAX_DELAY_MS = 10_000;

/**
 * Starts a consumer again after a crash that kafkajs leaves it stopped after.
 *
 * kafkajs restarts a crashed consumer only when the crash's cause is retriable. A broker restart
 * can produce causes that are not: `KafkaJSGroupCoordinatorNotFound` when the group's coordinator
 * is looked up at the moment the broker stops or starts (tulios/kafkajs#1445, #1630), a group
 * member joining with protocols the group no longer has. Such a consumer stays stopped for good,
 * while its process stays up and ready: the service would consume nothing, and say nothing, until
 * someone restarted it.
 *
 * Each such crash is logged (a warning, an error once the consumer has not joined its group for a
 * minute: a broker restart crashes consumers for seconds) and counted (`kafka_consumer_restarts_total`), and the
 * consumer runs again after a delay that doubles per crash not followed by a join of the group
 * (1 s up to 10 s), so that a cause that does last (a missing ACL) costs one attempt per 10 s.
 * kafkajs has already disconnected the consumer when it reports the crash; `run` joins again with
 * its subscriptions, and the consumer object, its listeners and its offset committer stay the same.
 */
export class CrashRestarter {
  private delayMs = FIRST_DELAY_MS;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private readonly crashes: FailureStreak;

  constructor(
    private readonly consumer: Consumer,
    private readonly run: ConsumerRunConfig,
    logger: Logger,
    /** The consumer group, before KAFKA_TOPIC_PREFIX. */
    private readonly groupId: string,
  ) {
    // From 0, so that the first restart is an increase Prometheus can see.
    consumerRestarts.inc({ group: groupId }, 0);
    consumer.on(consumer.events.CRASH, ({ payload }) => {
      if (!payload.restart) this.schedule(payload.error);
    });
    consumer.on(consumer.events.GROUP_JOIN, () => {
      this.delayMs = FIRST_DELAY_MS;
      this.crashes.succeeded({ groupId });
    });
    this.crashes = new FailureStreak(logger, 'consumer crashed with an error kafkajs does not restart from; starting it again');
  }

  /** No restart from now on (the consumer is being stopped, or never got going). */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private schedule(error: unknown): void {
    if (this.stopped) return;
    const delayMs = this.delayMs;
    this.delayMs = Math.min(delayMs * 2, MAX_DELAY_MS);
    this.crashes.failed(error, { groupId: this.groupId, delayMs });
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.restart(), delayMs);
  }

  private async restart(): Promise<void> {
    if (this.stopped) return;
    consumerRestarts.inc({ group: this.groupId });
    try {
      // A join that fails is reported as another crash; `run` itself throws only on bad arguments.
      await this.consumer.run(this.run);
    } catch (error) {
      this.schedule(error);
    }
  }
}
