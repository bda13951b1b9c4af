import type { Logger } from 'pino';
import type { EventStore, SqlExecutor } from '@seed/platform-event-store';
import type { NumberAssignedV1 } from '@seed/sms-batch-contracts';
import { readNumbers, type NumbersSnapshot } from './read-numbers';

/**
 * The numbers as this replica knows them, read again every `refreshMs` (only the events after the
 * snapshot held): an inbound SMS finds its number's owner without a query of its own, and a number
 * assigned through the admin API takes effect within a second or two.
 */
export class StoredNumbers {
  private snapshot: NumbersSnapshot | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: SqlExecutor,
    private readonly store: EventStore,
    private readonly logger: Logger,
    private readonly refreshMs = 1000,
  ) {}

  numberOf(destination: string): NumberAssignedV1 | undefined {
    return this.snapshot?.state.numbers.get(destination);
  }

  async start(): Promise<void> {
    await this.refresh();
    this.timer = setInterval(() => void this.refresh().catch((error: unknown) => this.logger.warn({ err: error }, 'numbers not refreshed; keeping the last known')), this.refreshMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  async refresh(): Promise<void> {
    this.snapshot = await readNumbers(this.db, this.store, this.snapshot);
  }
}
