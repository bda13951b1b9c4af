import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Logger } from 'pino';
import { quoteSchema } from '@seed/platform-event-store';
import { attachSqlRowGauges, LOGGER, SampledGauge, ServiceSchema } from '@seed/platform-nest';
import { dueDepthSql } from '@seed/platform-work-queue';
import { outboundQueueTable } from './outbound-queue.table';

const dueMessages = new SampledGauge({
  name: 'sms_batch_outbound_queue_due_messages',
  help: 'Messages of the outbound queue that are due and held by no sender (to send now, or again after a refusal or a lease that ran out)',
});
const oldestDueSeconds = new SampledGauge({
  name: 'sms_batch_outbound_queue_oldest_due_age_seconds',
  help: 'How long the longest-waiting due message of the outbound queue has been due (0 when none is)',
});

/**
 * The outbound queue's depth and age, for the dashboard and the queue-age alert. One range scan of
 * the due index (`outbound_queue_due`, on next_attempt_at): only rows due now, since a claimed row's
 * due time is moved forward by its lease, and rows scheduled later lie past the range. At most one
 * query per 5 s, whatever the scrapes.
 */
@Injectable()
export class OutboundQueueMetrics implements OnModuleInit, OnApplicationShutdown {
  private detach: () => void = () => undefined;

  constructor(
    private readonly dataSource: DataSource,
    private readonly schema: ServiceSchema,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onModuleInit(): void {
    const sql = dueDepthSql(outboundQueueTable(quoteSchema(this.schema.name)));
    this.detach = attachSqlRowGauges(this.dataSource, sql, { due: dueMessages, oldest: oldestDueSeconds }, (error) =>
      this.logger.debug({ err: error }, 'metrics: outbound queue not read'),
    );
  }

  onApplicationShutdown(): void {
    this.detach();
  }
}
