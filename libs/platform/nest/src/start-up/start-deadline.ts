import type { Logger } from 'pino';
import { withTimeout } from '@seed/platform-kafka';

/** Start-up gave up: one error that says what it waited for, for how long, and the last reason. */
export class StartTimeoutError extends Error {
  override readonly name = 'StartTimeoutError';
}

const NO_ANSWER = 'no answer before the start deadline';

const FIRST_DELAY_MS = 250;
const MAX_DELAY_MS = 5000;

/**
 * The time a service may spend getting its dependencies ready (START_TIMEOUT_MS from the process
 * start). A broker or database that is still starting is the normal case on a fresh machine or
 * after a node restart, not a fatal error: every start-up step runs through `retry`, which logs
 * what it waits for and tries again with backoff until the deadline.
 */
export class StartDeadline {
  private readonly at: number;

  constructor(
    readonly timeoutMs: number,
    private readonly logger: Logger,
  ) {
    this.at = Date.now() + timeoutMs;
  }

  /** Runs `step` until it succeeds; `cleanUp` runs after each failed attempt (e.g. a half-connected client). */
  async retry<T>(what: string, step: () => Promise<T>, cleanUp?: () => Promise<void>): Promise<T> {
    let delay = FIRST_DELAY_MS;
    let lastReason = 'no answer';
    for (let attempt = 1; ; attempt++) {
      try {
        // A single attempt can outlast the deadline (kafkajs retries a refused connection for ~30 s).
        const result = await withTimeout(step(), Math.max(0, this.at - Date.now()), NO_ANSWER);
        if (attempt > 1) this.logger.info({ waitingFor: what, attempts: attempt }, `${what}: ready`);
        return result;
      } catch (error) {
        await cleanUp?.().catch(() => undefined);
        const left = this.at - Date.now();
        if (!(error instanceof Error && error.message === NO_ANSWER)) lastReason = error instanceof Error ? error.message : String(error);
        if (left <= 0) {
          throw new StartTimeoutError(`gave up after START_TIMEOUT_MS=${this.timeoutMs} waiting for ${what}: ${lastReason}`, { cause: error });
        }
        const reason = lastReason;
        const wait = Math.min(delay, left);
        this.logger.warn({ waitingFor: what, attempt, retryInMs: wait, reason }, `waiting for ${what}: ${reason}`);
        await new Promise((resolve) => setTimeout(resolve, wait));
        delay = Math.min(delay * 2, MAX_DELAY_MS);
      }
    }
  }
}
