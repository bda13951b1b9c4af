import type { EventEnvelope } from '@seed/contracts';
import type { StoredEvent } from '@seed/platform-event-store';
import { withoutStoreFields } from '@seed/platform-kafka';
import { PRIVATE_STARTED_FIELDS } from '@seed/verification-contracts';

/** What leaves the service on verification.events.v1: VerificationStarted without its hash and sealed text. */
export function toPublicVerificationEvent(event: StoredEvent): EventEnvelope {
  const envelope = withoutStoreFields(event);
  if (event.type !== 'VerificationStarted') return envelope;
  const data = { ...(event.data as Record<string, unknown>) };
  for (const field of PRIVATE_STARTED_FIELDS) delete data[field];
  return { ...envelope, data };
}
