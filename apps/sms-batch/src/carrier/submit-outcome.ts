/** What a carrier answered to one submit_sm: its message id, or its refusal and whether to try again later. */
export type SubmitOutcome =
  | { ok: true; messageId: string }
  | { ok: false; temporary: boolean; status: number; detail: string };
