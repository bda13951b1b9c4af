/** What a carrier answered to one submit_sm: its message id, or its refusal and whether to try again later. */
export type SubmitOutcome =
  | { ok: true; messageId: string }
  | { ok: false; temporary: boolean; status: number; detail: string };

/** Not submitted: the sender gave the message back (stopping, or its lease nearly over) before it went out. */
export const NOT_SENT: SubmitOutcome = { ok: false, temporary: true, status: -2, detail: 'not sent: the sender gave the message back' };

/** Not submitted: no session to the carrier is bound. */
export const NOT_BOUND: SubmitOutcome = { ok: false, temporary: true, status: -1, detail: 'not bound to the carrier' };

/** Whether an outcome is NOT_SENT: nothing reached the carrier. */
export const wasNotSent = (outcome: SubmitOutcome): boolean => !outcome.ok && outcome.status === -2;

/** The status of a submit the carrier did not answer within SMPP_RESPONSE_TIMEOUT_MS (not an SMPP status). */
export const NO_RESPONSE_STATUS = -3;
