import type { Logger } from 'pino';
import type { DataSource } from 'typeorm';
import { attachSqlRowGauges, SampledGauge } from '@seed/platform-nest';
import type { FinalStatusWatch } from './final-status-watch';

const unreported = new SampledGauge({
  name: 'webhook_dispatcher_unreported_final_statuses',
  help: 'Final status changes with somewhere to go that neither became a delivery nor were posted, WEBHOOK_RECONCILE_AFTER_MS after they were published (counted up to 100,000)',
});

/** How often the handled rows are removed and the unreported ones looked for. */
const PASS_MS = 30_000;
/** An operator is told of unreported changes at most this often (with the oldest few). */
const LOG_EVERY_MS = 5 * 60_000;
const LOGGED = 20;

/**
 * The final-status reconciliation's upkeep and report: every 30 s the rows the intake or the sender
 * have handled leave `final_status_watch`, and what stays past `afterMs` is an unreported final
 * status, counted by the gauge (every replica reports the same value: take the maximum) and logged
 * as an error with the oldest ones' umids. docs/operations.md has the alert's runbook.
 */
export class FinalStatusReconciler {
  private timer: NodeJS.Timeout | undefined;
  private detach: () => void = () => undefined;
  private lastLogAt = 0;
  private passing: Promise<void> = Promise.resolve();

  constructor(
    private readonly dataSource: DataSource,
    private readonly watch: FinalStatusWatch,
    private readonly afterMs: number,
    private readonly logger: Logger,
    private readonly passMs = PASS_MS,
  ) {}

  start(): void {
    this.detach = attachSqlRowGauges(this.dataSource, this.watch.unreportedCountSql(this.afterMs), { unreported }, (error) =>
      this.logger.debug({ err: error }, 'metrics: final-status watch not read'),
    );
    this.timer = setInterval(() => (this.passing = this.pass()), this.passMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.detach();
    await this.passing;
  }

  /** One pass: handled rows removed, unreported ones told. */
  async pass(): Promise<void> {
    try {
      await this.watch.settle();
      if (Date.now() - this.lastLogAt < LOG_EVERY_MS) return;
      const oldest = await this.watch.unreported(this.afterMs, LOGGED);
      if (oldest.length === 0) return;
      this.lastLogAt = Date.now();
      this.logger.error(
        { unreported: oldest.map(({ umid, accountId, state, seenAt }) => ({ umid, accountId, state, seenAt })) },
        'final status changes never handled: no delivery scheduled and no webhook posted (runbook: WebhookFinalStatusUnreported)',
      );
    } catch (error) {
      this.logger.warn({ err: error }, 'final-status reconciliation pass failed; tried again at the next');
    }
  }
}
