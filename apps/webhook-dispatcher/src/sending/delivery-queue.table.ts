import { workQueueMetrics, type WorkQueueTable } from '@seed/platform-work-queue';

/** Claimed, handed back and fenced-off deliveries (`queue="webhook-deliveries"`). */
export const deliveryQueueMetrics = workQueueMetrics('webhook-deliveries');

/**
 * The deliveries as a work queue. Its lease column records when the claim was taken (the lease
 * runs until `next_attempt_at`): message ordering, the stranded sweep and the dead-lettering of a
 * broken endpoint's backlog read it as "held since", NULL when nobody holds the row.
 */
export function deliveryQueueTable(s: string): WorkQueueTable {
  return {
    schema: s,
    table: 'deliveries',
    id: { column: 'delivery_id', type: 'uuid' },
    due: 'next_attempt_at',
    leaseUntil: { column: 'lease_until', marks: 'claim-time' },
    token: { column: 'lease_token', sequence: 'delivery_lease_tokens' },
  };
}
