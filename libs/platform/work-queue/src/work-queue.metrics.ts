import { Counter } from 'prom-client';

/**
 * What the work queues do, by queue (`sms-outbound`, `webhook-deliveries`): rows claimed, rows
 * handed back, and results refused by the fence. Depth and age are each wing's gauges
 * (`dueDepthSql`), read from the table. Fenced-off results are rare and each one means a holder's
 * lease ran out while it worked: a paused replica, or one cut off from the database.
 */
const claimed = new Counter({
  name: 'work_queue_claimed_rows_total',
  help: 'Rows leased by claims (and by hand-overs that lease rows as a claim does), by queue',
  labelNames: ['queue'] as const,
});
const released = new Counter({
  name: 'work_queue_released_rows_total',
  help: 'Rows handed back to their queue unfinished by the holder of their claim, by queue',
  labelNames: ['queue'] as const,
});
const fencedOff = new Counter({
  name: 'work_queue_fenced_off_total',
  help: 'Results and hand-backs not written because their row was claimed anew after their lease ran out, by queue',
  labelNames: ['queue'] as const,
});

/** The counters of one queue. */
export interface WorkQueueMetrics {
  claimed(rows: number): void;
  released(rows: number): void;
  fencedOff(rows: number): void;
}

export function workQueueMetrics(queue: string): WorkQueueMetrics {
  const add = (counter: Counter<'queue'>) => (rows: number) => {
    if (rows > 0) counter.inc({ queue }, rows);
  };
  return { claimed: add(claimed), released: add(released), fencedOff: add(fencedOff) };
}
