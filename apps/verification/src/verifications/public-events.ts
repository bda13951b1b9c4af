import type { EventEnvelope } from '@seed/contracts';
import type { StoredEvent } from '@seed/platform-event-store';
import { withoutStoreFields, type PublicShape } from '@seed/platform-kafka';
import { PRIVATE_STARTED_FIELDS } from '@seed/verification-contracts';

/** What leaves the service on verification.events.v1: VerificationStarted without its hash and sealed text. */
export function toPublicVerificationEvent(event: StoredEvent): EventEnvelope {
  const envelope = withoutStoreFields(event);
  if (event.type !== 'VerificationStarted') return envelope;
  const data = { ...(event.data as Record<string, unknown>) };
  for (const field of PRIVATE_STARTED_FIELDS) delete data[field];
  return { ...envelope, data };
}

/** The relay's shape of verification's events: only VerificationStarted is reshaped, the rest go out as stored. */
export const VERIFICATION_PUBLIC_SHAPE: PublicShape = { toPublic: toPublicVerificationEvent, reshaped: ['VerificationStarted'] };
