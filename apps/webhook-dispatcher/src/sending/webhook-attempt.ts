import { inSpan, SpanKind } from '@seed/platform-telemetry';
import { WebhookHeader } from '@seed/webhook-dispatcher-contracts';
import { signatureHeader, type AttemptOutcome } from '@seed/webhook-dispatcher-domain';
import type { HeldDelivery } from './sending-endpoint';
import type { WebhookHttpClient } from './webhook-http-client';

/** One signed POST of a held delivery; whatever goes wrong is a failed attempt, never a throw. */
export async function attemptDelivery(http: WebhookHttpClient, delivery: HeldDelivery): Promise<AttemptOutcome> {
  if (delivery.secrets.length === 0) return { kind: 'failure', statusCode: null, timedOut: false, error: 'the account has no signing secret' };
  const t = Math.floor(Date.now() / 1000);
  try {
    // The POST joins the trace of the status change it reports (and so of the batch's request).
    const attributes = { 'webhook.attempt': delivery.attempts + 1 };
    return await inSpan('webhook send', { kind: SpanKind.CLIENT, parent: delivery.traceparent, attributes }, () =>
      http.post(delivery.url, delivery.body, {
        [WebhookHeader.Signature]: signatureHeader(delivery.secrets, t, delivery.body),
        [WebhookHeader.DeliveryId]: delivery.deliveryId,
        [WebhookHeader.Attempt]: String(delivery.attempts + 1),
      }),
    );
  } catch (error) {
    return { kind: 'failure', statusCode: null, timedOut: false, error: error instanceof Error ? error.message : String(error) };
  }
}
