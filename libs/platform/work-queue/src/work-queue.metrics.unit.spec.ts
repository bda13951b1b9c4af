import { register } from 'prom-client';
import { workQueueMetrics } from './work-queue.metrics';

const valueOf = async (name: string, queue: string) =>
  (await register.getSingleMetric(name)?.get())?.values.find((v) => v.labels['queue'] === queue)?.value ?? 0;

describe('work queue metrics', () => {
  it('counts rows by queue, and nothing for an empty call', async () => {
    const metrics = workQueueMetrics('unit-queue');
    metrics.claimed(500);
    metrics.claimed(0);
    metrics.released(3);
    metrics.fencedOff(1);
    expect(await valueOf('work_queue_claimed_rows_total', 'unit-queue')).toBe(500);
    expect(await valueOf('work_queue_released_rows_total', 'unit-queue')).toBe(3);
    expect(await valueOf('work_queue_fenced_off_total', 'unit-queue')).toBe(1);
  });
});
