import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Logger } from 'pino';
import { quoteSchema } from '@seed/platform-event-store';
import { attachSqlRowGauges, LOGGER, SampledGauge, ServiceSchema } from '@seed/platform-nest';

const pending = new SampledGauge({
  name: 'webhook_dispatcher_pending_deliveries',
  help: 'Deliveries not yet ended: due, held by a sender, waiting for a retry, or waiting behind an earlier change of their message',
});
const due = new SampledGauge({
  name: 'webhook_dispatcher_due_deliveries',
  help: 'Pending deliveries that are due now and held by no sender',
});
const oldestDue = new SampledGauge({
  name: 'webhook_dispatcher_oldest_due_age_seconds',
  help: 'How long the longest-waiting due delivery has been due (0 when none is)',
});
const deadLetters = new SampledGauge({
  name: 'webhook_dispatcher_dead_letters',
  help: 'Deliveries dead-lettered and not re-driven (counted up to 100,000)',
});

const brokenEndpoints = new SampledGauge({
  name: 'webhook_dispatcher_broken_endpoints',
  help: 'Endpoints (origins) whose circuit breaker is open or half-open: their deliveries wait for its cool-down',
});

/** Dead letters are counted up to this many: the count stays one index scan however many pile up. */
const DEAD_LETTER_COUNT_CAP = 100_000;

/**
 * The delivery queue's depth and age and the dead letters, for the dashboard and the alerts. Each
 * count reads one partial index (pending rows: the message-order index; due rows: the claimable
 * index; dead ones: the dead-letter index, up to a cap), and the oldest due row is one probe of the
 * claimable index per endpoint, as the claim does; the breakers are read from the endpoints' rows
 * (one per origin ever delivered to, shared by the replicas). Not the work-queue library's
 * `dueDepthSql`: that takes the oldest as a min over one due index, and this queue's claimable index
 * is ordered per endpoint. At most one reading per 5 s, whatever the scrapes;
 * every replica reports the same values (take the maximum).
 */
export function webhookQueueSql(schema: string): string {
  const s = quoteSchema(schema);
  return `
    SELECT (SELECT count(*) FROM ${s}.deliveries WHERE state = 'pending')::float8 AS pending,
           (SELECT count(*) FROM ${s}.deliveries
             WHERE state = 'pending' AND next_attempt_at < 'infinity' AND next_attempt_at <= now())::float8 AS due,
           (SELECT coalesce(extract(epoch FROM now() - min(front.at)), 0) FROM ${s}.delivery_endpoints e CROSS JOIN LATERAL (
              SELECT d.next_attempt_at AS at FROM ${s}.deliveries d
               WHERE d.origin = e.origin AND d.state = 'pending' AND d.next_attempt_at < 'infinity'
               ORDER BY d.next_attempt_at LIMIT 1) front
             WHERE front.at <= now())::float8 AS oldest,
           (SELECT count(*) FROM (SELECT 1 FROM ${s}.deliveries WHERE state = 'dead' LIMIT ${DEAD_LETTER_COUNT_CAP}) dead)::float8 AS dead,
           (SELECT count(*) FROM ${s}.delivery_endpoints WHERE open_until IS NOT NULL)::float8 AS broken`;
}

@Injectable()
export class WebhookQueueMetrics implements OnModuleInit, OnApplicationShutdown {
  private detach: () => void = () => undefined;

  constructor(
    private readonly dataSource: DataSource,
    private readonly schema: ServiceSchema,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onModuleInit(): void {
    const gauges = { pending, due, oldest: oldestDue, dead: deadLetters, broken: brokenEndpoints };
    this.detach = attachSqlRowGauges(this.dataSource, webhookQueueSql(this.schema.name), gauges, (error) =>
      this.logger.debug({ err: error }, 'metrics: webhook queue not read'),
    );
  }

  onApplicationShutdown(): void {
    this.detach();
  }
}
