import type { OutboundMessage } from './outbound-queue.repository';
import type { SenderSettings } from './sender-settings';

/**
 * What a claimed message meets before any carrier is chosen: it may have expired, its recipient
 * may have said STOP, or this replica may not know (its opt-outs stale: the message waits, so that
 * nothing reaches someone who opted out).
 */
export type HandoffGate = 'expired' | 'opted-out' | 'opt-outs-unknown' | 'open';

export function handoffGate(message: Pick<OutboundMessage, 'expiry' | 'subAccountId' | 'destination'>, now: string, optedOut: SenderSettings['optedOut']): HandoffGate {
  if (message.expiry && message.expiry <= now) return 'expired';
  const stopped = optedOut(message.subAccountId, message.destination);
  if (stopped === 'unknown') return 'opt-outs-unknown';
  return stopped ? 'opted-out' : 'open';
}
