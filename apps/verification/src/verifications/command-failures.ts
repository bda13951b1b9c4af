import { ApiErrorCode, type CommandReply } from '@seed/contracts';
import { CommitDeadlinePassed, PAST_DEADLINE_REPLY, pastCommandDeadline } from '@seed/platform-event-store';
import { VerificationError } from '@seed/verification-domain';
import { AbuseLimitError } from '../limits/abuse-limits';
import { CodeKeyUnavailableError } from './code-secrets';

/** Provider token: VERIFY_MAX_COMMAND_AGE_MS. */
export const MAX_COMMAND_AGE_MS = Symbol('MAX_COMMAND_AGE_MS');

/**
 * The answer to a command that can no longer be committed before the gateway stops waiting for it
 * (its issue time plus the gateway's wait, less the skew margin), or null. Its client has been (or
 * is about to be) answered 503 and expects nothing to have changed: a code it does not expect, or
 * an attempt it was not told of, would be a surprise (and a retry would count twice).
 */
export function staleCommandReply(issuedAt: string, maxAgeMs: number): CommandReply<never> | null {
  return pastCommandDeadline(issuedAt, maxAgeMs) ? PAST_DEADLINE_REPLY : null;
}

/**
 * Runs one command (the CommandPipeline retries it on a conflict) and maps the decided refusals, and
 * a missed deadline, to the reply the gateway turns into HTTP. Anything else is thrown (the command consumer retries it,
 * then dead-letters it).
 */
export async function replyOf<T>(work: () => Promise<T>): Promise<CommandReply<T>> {
  try {
    return { ok: true, result: await work() };
  } catch (error) {
    // The deadline passed while deciding (a slow database): rolled back, nothing changed.
    if (error instanceof CommitDeadlinePassed) return PAST_DEADLINE_REPLY;
    const failure = failureOf(error);
    if (failure) return { ok: false, failure };
    throw error;
  }
}

function failureOf(error: unknown) {
  if (error instanceof VerificationError) {
    switch (error.kind) {
      case 'not-found':
        return { status: 404, code: ApiErrorCode.NotFound, message: error.message };
      case 'resend-too-early':
        return { status: 429, code: ApiErrorCode.ResendIntervalViolation, message: error.message, retryAfterSeconds: error.retryAfterSeconds ?? 1 };
      case 'wrong-code-length':
        return { status: 400, code: ApiErrorCode.InvalidParameter, message: error.message };
      case 'already-started':
        return null;
    }
  }
  if (error instanceof AbuseLimitError) {
    return { status: 429, code: ApiErrorCode.ResendIntervalViolation, message: error.message, retryAfterSeconds: error.retryAfterSeconds };
  }
  if (error instanceof CodeKeyUnavailableError) {
    return { status: 503, code: ApiErrorCode.InternalError, message: 'the code cannot be checked now; try again later', retryAfterSeconds: 30 };
  }
  return null;
}
