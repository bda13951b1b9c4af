import { Histogram } from 'prom-client';
import type { AttemptOutcome } from '@seed/webhook-dispatcher-domain';

/**
 * Every webhook POST, by how it ended: `success` (2xx), `redirect`, `client_error`, `server_error`
 * (by the status class of the answer), `timeout`, `network_error` (refused, reset, DNS) and
 * `refused` (the address check stopped it). Its count is the dashboard's sent and failed webhooks.
 */
const attemptSeconds = new Histogram({
  name: 'webhook_dispatcher_attempt_duration_seconds',
  help: 'Time of a webhook POST from its start to its outcome, by outcome',
  labelNames: ['outcome'] as const,
  buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
});

export function attemptOutcomeLabel(outcome: AttemptOutcome): string {
  switch (outcome.kind) {
    case 'success':
      return 'success';
    case 'refused':
      return 'refused';
    case 'failure':
      if (outcome.timedOut) return 'timeout';
      if (outcome.statusCode === null) return 'network_error';
      if (outcome.statusCode >= 500) return 'server_error';
      if (outcome.statusCode >= 400) return 'client_error';
      return 'redirect';
  }
}

/** Times one attempt and counts its outcome; passes the outcome on. */
export async function timedAttempt(attempt: Promise<AttemptOutcome>): Promise<AttemptOutcome> {
  const stop = attemptSeconds.startTimer();
  const outcome = await attempt;
  stop({ outcome: attemptOutcomeLabel(outcome) });
  return outcome;
}
