import { createHmac, timingSafeEqual } from 'node:crypto';
import type { ReceivedWebhook } from '@seed/platform-testing';
import type { DeliveryStatusWebhook } from '@seed/webhook-dispatcher-contracts';

// The receiver itself is the one the benchmarks use too (libs/platform/testing); what follows is
// what a customer's code does with its requests.
export { WebhookReceiver, type ReceivedWebhook, type ReceiverBehaviour } from '@seed/platform-testing';

/** What the docs tell customers to do: the header's t and one v1 per valid secret, HMAC-SHA256 over "<t>.<body>". */
export function verifiesWith(secret: string, header: string | string[] | undefined, body: string): boolean {
  if (typeof header !== 'string') return false;
  const parts = header.split(',').map((p) => p.split('='));
  const t = parts.find(([k]) => k === 't')?.[1];
  if (!t || Math.abs(Date.now() / 1000 - Number(t)) > 300) return false;
  const expected = createHmac('sha256', secret).update(`${t}.${body}`).digest();
  return parts.some(([k, v]) => k === 'v1' && v !== undefined && /^[0-9a-f]{64}$/.test(v) && timingSafeEqual(Buffer.from(v, 'hex'), expected));
}

/** The body as a receiver parses it: the contract's type, so a test reads the fields the dispatcher sends. */
export const bodyOf = (r: ReceivedWebhook): DeliveryStatusWebhook => JSON.parse(r.body) as DeliveryStatusWebhook;
