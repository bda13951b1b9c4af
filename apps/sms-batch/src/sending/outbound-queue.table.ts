import { workQueueMetrics, type WorkQueueTable } from '@seed/platform-work-queue';

/** Claimed, handed back and fenced-off rows of the outbound queue (`queue="sms-outbound"`). */
export const outboundQueueMetrics = workQueueMetrics('sms-outbound');

/** The outbound queue as a work queue: its lease column records the lease's end, as the due time does. */
export function outboundQueueTable(s: string): WorkQueueTable {
  return {
    schema: s,
    table: 'outbound_queue',
    id: { column: 'umid', type: 'uuid' },
    due: 'next_attempt_at',
    leaseUntil: { column: 'lease_until', marks: 'lease-end' },
    token: { column: 'lease_token', sequence: 'outbound_lease_tokens' },
  };
}
