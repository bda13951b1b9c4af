import type { SubmitSmPart } from '@seed/sms-batch-domain';
import type { SmppCarrierPool } from '../carrier/smpp-carrier-pool';
import { NOT_SENT, type SubmitOutcome } from '../carrier/submit-outcome';

/** Throttled and queue-full: worth a few quick tries before the message goes back to the queue. */
const IN_PLACE_STATUSES = new Set([0x14, 0x58]);
const IN_PLACE_ATTEMPTS = 3;

export interface PartSubmission {
  /** Whether the sender still holds the message (not stopping, its lease not nearly over). */
  mayStillSend: () => boolean;
  /** Whether to give up retrying here because another carrier of the route can take it now. */
  moveOn: () => boolean;
  /** Told of each refusal (the carrier may be avoided for a while). */
  noteRefusal: (carrierId: string, status: number) => void;
  /** First in-place retry delay; doubles per attempt. */
  retryBaseMs: number;
}

/**
 * One part, with throttling and full queues retried in place a few times: releasing the message
 * instead would send its parts that were already accepted a second time. A message of one part
 * that another carrier of its route can take now moves on at once instead (`moveOn`).
 */
export async function submitPart(pool: SmppCarrierPool, part: SubmitSmPart, how: PartSubmission): Promise<SubmitOutcome> {
  for (let attempt = 1; ; attempt++) {
    if (!how.mayStillSend()) return NOT_SENT;
    const outcome = await pool.submit(part, how.mayStillSend);
    if (!outcome.ok) how.noteRefusal(pool.carrierId, outcome.status);
    const retryable = !outcome.ok && outcome.temporary && IN_PLACE_STATUSES.has(outcome.status);
    if (!retryable || attempt >= IN_PLACE_ATTEMPTS || how.moveOn()) return outcome;
    await new Promise((resolve) => setTimeout(resolve, how.retryBaseMs * 2 ** (attempt - 1)));
  }
}
