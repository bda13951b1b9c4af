import { Counter } from 'prom-client';
import type { InboundEvent } from '@seed/sms-batch-domain';

/**
 * What became of inbound parts as they were recorded: `part` (kept for its siblings), `message`
 * (a whole message recorded; with `keyword` and whether it was to a number of ours), `copy` (the
 * carrier's resend, or a repeated part), `incomplete` (parts delivered without their siblings).
 */
const inboundParts = new Counter({
  name: 'sms_batch_inbound_total',
  help: 'Inbound SMS recorded, by outcome (part, message, copy, incomplete), keyword (opt-out, opt-in, help, none) and whether the number is one of ours (owned: true/false)',
  labelNames: ['outcome', 'keyword', 'owned'] as const,
});

export function countInbound(events: readonly InboundEvent[]): void {
  if (events.length === 0) {
    inboundParts.inc({ outcome: 'copy', keyword: 'none', owned: 'unknown' });
    return;
  }
  for (const event of events) {
    if (event.type === 'InboundPartReceived') {
      inboundParts.inc({ outcome: 'part', keyword: 'none', owned: 'unknown' });
      continue;
    }
    const data = event.data;
    inboundParts.inc({ outcome: data.incomplete ? 'incomplete' : 'message', keyword: data.keyword ?? 'none', owned: String(data.accountId !== null) });
  }
}
