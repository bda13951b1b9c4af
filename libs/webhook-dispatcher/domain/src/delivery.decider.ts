import { retryDelayMs, type RetryPolicy } from './backoff';
import type { DeliveryEvent, DeliveryScheduledV1 } from './delivery.events';

/*
 * One delivery: pending -> delivered, or pending -> (failed attempts) -> dead -> (re-driven) pending.
 * A 2xx ends it delivered; any other answer, a timeout or a connection error is a failed attempt,
 * retried after a jittered backoff until the retry window (maxAgeMs from scheduling or re-drive)
 * would be passed, then dead-lettered. A refused target (SSRF guard) is dead-lettered at once:
 * retrying would be refused again. A delivery held back past its retry window without an attempt
 * (its endpoint's circuit breaker stayed open) is dead-lettered too, with the attempts it had.
 * Outcomes for a delivery that is no longer pending (a late answer after a lease ran out and
 * another attempt finished first) decide nothing.
 */

export type DeliveryStatus = 'none' | 'pending' | 'delivered' | 'dead';

export interface DeliveryState {
  status: DeliveryStatus;
  attempts: number;
  /** Start of the current retry window: when scheduled, or last re-driven. */
  windowStart: string | null;
}

export type AttemptOutcome =
  | { kind: 'success'; statusCode: number }
  | { kind: 'failure'; statusCode: number | null; timedOut: boolean; error: string }
  | { kind: 'refused'; reason: string };

export type DeliveryCommand =
  | { type: 'Schedule'; delivery: DeliveryScheduledV1 }
  | { type: 'RecordOutcome'; deliveryId: string; outcome: AttemptOutcome; at: string; random: number; policy: RetryPolicy }
  | { type: 'Redrive'; deliveryId: string; at: string }
  /** Not sent (its endpoint's breaker is open): dead-lettered if its retry window has passed. */
  | { type: 'Expire'; deliveryId: string; at: string; maxAgeMs: number; detail: string };

export const initialDeliveryState = (): DeliveryState => ({ status: 'none', attempts: 0, windowStart: null });

export function decideDelivery(command: DeliveryCommand, state: DeliveryState): DeliveryEvent[] {
  switch (command.type) {
    case 'Schedule':
      if (state.status !== 'none') return [];
      return [{ type: 'DeliveryScheduled', schemaVersion: 1, data: command.delivery }];
    case 'RecordOutcome':
      if (state.status !== 'pending') return [];
      return decideOutcome(command, state);
    case 'Redrive':
      if (state.status !== 'dead') return [];
      return [{ type: 'DeliveryRedriven', schemaVersion: 1, data: { deliveryId: command.deliveryId, redrivenAt: command.at } }];
    case 'Expire': {
      if (state.status !== 'pending') return [];
      if (Date.parse(command.at) < Date.parse(state.windowStart ?? command.at) + command.maxAgeMs) return [];
      const { deliveryId, at, detail } = command;
      return [{ type: 'DeliveryDeadLettered', schemaVersion: 1, data: { deliveryId, attempts: state.attempts, reason: 'retries-exhausted', detail, deadLetteredAt: at } }];
    }
  }
}

function decideOutcome(command: Extract<DeliveryCommand, { type: 'RecordOutcome' }>, state: DeliveryState): DeliveryEvent[] {
  const { deliveryId, outcome, at } = command;
  const attempt = state.attempts + 1;
  switch (outcome.kind) {
    case 'success':
      return [{ type: 'DeliverySucceeded', schemaVersion: 1, data: { deliveryId, attempt, statusCode: outcome.statusCode, deliveredAt: at } }];
    case 'refused':
      return [
        {
          type: 'DeliveryDeadLettered',
          schemaVersion: 1,
          data: { deliveryId, attempts: state.attempts, reason: 'target-refused', detail: outcome.reason, deadLetteredAt: at },
        },
      ];
    case 'failure': {
      const next = Date.parse(at) + retryDelayMs(command.policy, attempt, command.random);
      const windowEnd = Date.parse(state.windowStart ?? at) + command.policy.maxAgeMs;
      const exhausted = next > windowEnd;
      const failed: DeliveryEvent = {
        type: 'DeliveryAttemptFailed',
        schemaVersion: 1,
        data: {
          deliveryId,
          attempt,
          statusCode: outcome.statusCode,
          timedOut: outcome.timedOut,
          error: outcome.error,
          failedAt: at,
          nextAttemptAt: exhausted ? null : new Date(next).toISOString(),
        },
      };
      if (!exhausted) return [failed];
      return [
        failed,
        {
          type: 'DeliveryDeadLettered',
          schemaVersion: 1,
          data: { deliveryId, attempts: attempt, reason: 'retries-exhausted', detail: outcome.error, deadLetteredAt: at },
        },
      ];
    }
  }
}

export function evolveDelivery(state: DeliveryState, event: DeliveryEvent): DeliveryState {
  switch (event.type) {
    case 'DeliveryScheduled':
      return { status: 'pending', attempts: 0, windowStart: event.data.scheduledAt };
    case 'DeliveryAttemptFailed':
      return { ...state, attempts: event.data.attempt };
    case 'DeliverySucceeded':
      return { ...state, status: 'delivered', attempts: event.data.attempt };
    case 'DeliveryDeadLettered':
      return { ...state, status: 'dead', attempts: event.data.attempts };
    case 'DeliveryRedriven':
      return { status: 'pending', attempts: 0, windowStart: event.data.redrivenAt };
  }
}
