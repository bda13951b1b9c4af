import type { DeliveryEvent, DeliveryState } from '@seed/webhook-dispatcher-domain';

/** A delivery's new fold (its row in `deliveries`) after the events of one decision. */
export interface Fold {
  delivery_id: string;
  state: string;
  attempts: number;
  version: number;
  window_start: string | null;
  next_attempt_at: string | null;
  touched_attempt: boolean;
  last_status: number | null;
  last_error: string | null;
  finished_at: string | null;
}

export function foldOf(deliveryId: string, version: number, state: DeliveryState, events: DeliveryEvent[]): Fold {
  const fold: Fold = {
    delivery_id: deliveryId,
    state: state.status,
    attempts: state.attempts,
    version,
    window_start: state.windowStart,
    next_attempt_at: null,
    touched_attempt: false,
    last_status: null,
    last_error: null,
    finished_at: null,
  };
  for (const e of events) {
    switch (e.type) {
      case 'DeliveryAttemptFailed':
        Object.assign(fold, { touched_attempt: true, last_status: e.data.statusCode, last_error: e.data.error, next_attempt_at: e.data.nextAttemptAt });
        break;
      case 'DeliverySucceeded':
        Object.assign(fold, { touched_attempt: true, last_status: e.data.statusCode, last_error: null, finished_at: e.data.deliveredAt });
        break;
      case 'DeliveryDeadLettered':
        fold.finished_at = e.data.deadLetteredAt;
        if (e.data.reason === 'target-refused') Object.assign(fold, { touched_attempt: true, last_status: null, last_error: `target refused: ${e.data.detail}` });
        break;
      case 'DeliveryRedriven':
        Object.assign(fold, { next_attempt_at: e.data.redrivenAt, finished_at: null });
        break;
      case 'DeliveryScheduled':
        break;
    }
  }
  return fold;
}
