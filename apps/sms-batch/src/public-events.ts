import type { EventEnvelope } from '@seed/contracts';
import type { StoredEvent } from '@seed/platform-event-store';
import { withoutStoreFields, type PublicShape } from '@seed/platform-kafka';
import type { CarrierConfiguredV1, MessageQueuedV1 } from '@seed/sms-batch-contracts';

/**
 * What sms-batch publishes of its log: every event, but a sealed message's MessageQueued without
 * its sealed text, and a CarrierConfigured without the carrier's sealed password. Subscribers see
 * the redacted text (an OTP code or guest token masked); the sealed copies are sms-batch's alone,
 * and the topic, kept forever, never holds them, so a keyring that leaks later opens nothing read
 * from the topic.
 */
export function toPublicSmsBatchEvent(event: StoredEvent): EventEnvelope {
  const envelope = withoutStoreFields(event);
  if (envelope.type === 'MessageQueued') {
    const { sealedText: _sealed, ...data } = envelope.data as MessageQueuedV1;
    return { ...envelope, data };
  }
  if (envelope.type === 'CarrierConfigured') {
    const { sealedPassword: _sealed, ...data } = envelope.data as CarrierConfiguredV1;
    return { ...envelope, data };
  }
  return envelope;
}

/** The relay's shape of sms-batch's events: only these are reshaped, the rest go out as stored. */
export const SMS_BATCH_PUBLIC_SHAPE: PublicShape = { toPublic: toPublicSmsBatchEvent, reshaped: ['MessageQueued', 'CarrierConfigured'] };
