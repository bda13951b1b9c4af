import type { EventEnvelope } from '@seed/contracts';
import type { StoredEvent } from '@seed/platform-event-store';
import { withoutStoreFields, type PublicShape } from '@seed/platform-kafka';
import type { MessageQueuedV1 } from '@seed/sms-batch-contracts';

/**
 * What sms-batch publishes of its log: every event, but a sealed message's MessageQueued without
 * its sealed text. Subscribers see the redacted text (an OTP code or guest token masked); the
 * sealed copy is the sender's alone, and the topic, kept forever, never holds it, so a keyring that
 * leaks later opens nothing read from the topic.
 */
export function toPublicSmsBatchEvent(event: StoredEvent): EventEnvelope {
  const envelope = withoutStoreFields(event);
  if (envelope.type !== 'MessageQueued') return envelope;
  const { sealedText: _sealed, ...data } = envelope.data as MessageQueuedV1;
  return { ...envelope, data };
}

/** The relay's shape of sms-batch's events: only MessageQueued is reshaped, the rest go out as stored. */
export const SMS_BATCH_PUBLIC_SHAPE: PublicShape = { toPublic: toPublicSmsBatchEvent, reshaped: ['MessageQueued'] };
