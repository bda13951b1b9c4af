import { ApiErrorCode, type CommandReply } from '@seed/contracts';

/**
 * How much earlier than the gateway's deadline, by this host's clock, a command must be committed.
 * It covers the clocks of the two hosts disagreeing (NTP keeps them within milliseconds; this
 * allows a second) and the reply's way back to the gateway: a command committed later than that
 * could reach a client that was answered 503 already, and its retry would do it a second time.
 */
export const DEADLINE_SKEW_MARGIN_MS = 1000;

/**
 * True when a command issued at `issuedAt` can no longer be committed and answered before the
 * gateway gives up on it (`maxAgeMs`, its COMMAND_TIMEOUT_MS) and answers 503. An unreadable
 * `issuedAt` counts as late: nothing is done rather than something the client was told failed.
 */
export function pastCommandDeadline(issuedAt: string, maxAgeMs: number, now: number = Date.now()): boolean {
  return !(now <= commitDeadline(issuedAt, maxAgeMs));
}

/**
 * The time (ms) by which a command issued at `issuedAt` must be committed (a decision's
 * `commitBy`); NaN for an unreadable `issuedAt`, which the pipeline counts as past.
 */
export function commitDeadline(issuedAt: string, maxAgeMs: number): number {
  return Date.parse(issuedAt) + maxAgeMs - DEADLINE_SKEW_MARGIN_MS;
}

/** The answer to a command not decided because its deadline passed: 503, not done, try again. */
export const PAST_DEADLINE_REPLY: CommandReply<never> = {
  ok: false,
  failure: { status: 503, code: ApiErrorCode.InternalError, message: 'the service is overloaded; try again', retryAfterSeconds: 5 },
};
