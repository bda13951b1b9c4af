/**
 * The fencing token of a claim: a bigint drawn from the queue's sequence, carried as its decimal
 * text (node-postgres answers bigint as text; a JavaScript number would round past 2^53). A result
 * or a hand-back is written only while the row still carries the token of the claim it comes from,
 * so a holder whose lease ran out (paused, cut off from the database) can never overwrite the work
 * of the holder that claimed the row after it.
 */
export type LeaseToken = string;

/** A token as the driver answers it (bigint text, or null for a row nobody ever claimed). */
export function leaseTokenOf(value: string | number | bigint | null): LeaseToken | null {
  return value === null ? null : String(value);
}

/** A row named by its key and the token of the claim that holds it. */
export interface HeldRow {
  id: string;
  leaseToken: LeaseToken;
}
