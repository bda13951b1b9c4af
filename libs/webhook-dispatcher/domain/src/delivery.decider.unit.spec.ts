import type { RetryPolicy } from './backoff';
import { decideDelivery, evolveDelivery, initialDeliveryState, type AttemptOutcome, type DeliveryCommand, type DeliveryState } from './delivery.decider';
import type { DeliveryEvent, DeliveryScheduledV1 } from './delivery.events';

const ID = 'd-1';
const T0 = '2030-01-15T10:00:00.000Z';
const POLICY: RetryPolicy = { baseDelayMs: 1000, maxDelayMs: 60_000, maxAgeMs: 24 * 3600_000 };
const SCHEDULED: DeliveryScheduledV1 = {
  deliveryId: ID,
  accountId: 'acme',
  umid: 'u-1',
  sequence: 2,
  url: 'https://hooks.example.com/dlr',
  body: '{}',
  sourceEventId: 'e-1',
  scheduledAt: T0,
};

const given = (events: DeliveryEvent[]): DeliveryState => events.reduce(evolveDelivery, initialDeliveryState());
const scheduled: DeliveryEvent = { type: 'DeliveryScheduled', schemaVersion: 1, data: SCHEDULED };
const outcome = (o: AttemptOutcome, at = T0, random = 0.5): DeliveryCommand => ({ type: 'RecordOutcome', deliveryId: ID, outcome: o, at, random, policy: POLICY });
const failure: AttemptOutcome = { kind: 'failure', statusCode: 500, timedOut: false, error: 'HTTP 500' };

describe('delivery decider', () => {
  it('schedules once: a second Schedule decides nothing', () => {
    expect(decideDelivery({ type: 'Schedule', delivery: SCHEDULED }, given([]))).toEqual([scheduled]);
    expect(decideDelivery({ type: 'Schedule', delivery: SCHEDULED }, given([scheduled]))).toEqual([]);
  });

  it('a 2xx ends it delivered, counting the attempt', () => {
    expect(decideDelivery(outcome({ kind: 'success', statusCode: 204 }), given([scheduled]))).toEqual([
      { type: 'DeliverySucceeded', schemaVersion: 1, data: { deliveryId: ID, attempt: 1, statusCode: 204, deliveredAt: T0 } },
    ]);
  });

  it('a failure is retried after a jittered delay within base * 2^(n-1)', () => {
    const first = decideDelivery(outcome(failure, T0, 0.5), given([scheduled]));
    expect(first).toEqual([
      {
        type: 'DeliveryAttemptFailed',
        schemaVersion: 1,
        data: { deliveryId: ID, attempt: 1, statusCode: 500, timedOut: false, error: 'HTTP 500', failedAt: T0, nextAttemptAt: '2030-01-15T10:00:00.500Z' },
      },
    ]);
    const second = decideDelivery(outcome(failure, T0, 0.5), given([scheduled, ...first]));
    const third = decideDelivery(outcome(failure, T0, 0.999), given([scheduled, ...first, ...second]));
    expect(third[0]).toMatchObject({ data: { attempt: 3, nextAttemptAt: '2030-01-15T10:00:03.996Z' } });
  });

  it('records a timeout with no status', () => {
    const events = decideDelivery(outcome({ kind: 'failure', statusCode: null, timedOut: true, error: 'no answer within 10000 ms' }), given([scheduled]));
    expect(events[0]).toMatchObject({ type: 'DeliveryAttemptFailed', data: { statusCode: null, timedOut: true } });
  });

  it('dead-letters when the next attempt would fall after the retry window', () => {
    const late = new Date(Date.parse(T0) + POLICY.maxAgeMs - 10).toISOString();
    const events = decideDelivery(outcome(failure, late, 0.9), given([scheduled]));
    expect(events.map((e) => e.type)).toEqual(['DeliveryAttemptFailed', 'DeliveryDeadLettered']);
    expect(events[0]).toMatchObject({ data: { nextAttemptAt: null } });
    expect(events[1]).toMatchObject({ data: { reason: 'retries-exhausted', attempts: 1, detail: 'HTTP 500' } });
    expect(given([scheduled, ...events])).toMatchObject({ status: 'dead', attempts: 1 });
  });

  it('dead-letters a refused target at once, without an attempt', () => {
    const events = decideDelivery(outcome({ kind: 'refused', reason: '10.0.0.1 is a private address' }), given([scheduled]));
    expect(events).toEqual([
      {
        type: 'DeliveryDeadLettered',
        schemaVersion: 1,
        data: { deliveryId: ID, attempts: 0, reason: 'target-refused', detail: '10.0.0.1 is a private address', deadLetteredAt: T0 },
      },
    ]);
  });

  it('ignores outcomes once delivered or dead (a late answer after a lease ran out)', () => {
    const delivered = given([scheduled, { type: 'DeliverySucceeded', schemaVersion: 1, data: { deliveryId: ID, attempt: 1, statusCode: 200, deliveredAt: T0 } }]);
    expect(decideDelivery(outcome(failure), delivered)).toEqual([]);
    expect(decideDelivery(outcome({ kind: 'success', statusCode: 200 }), delivered)).toEqual([]);
  });

  it('re-drives only a dead delivery, with a fresh retry window and attempt count', () => {
    const dead: DeliveryEvent = {
      type: 'DeliveryDeadLettered',
      schemaVersion: 1,
      data: { deliveryId: ID, attempts: 7, reason: 'retries-exhausted', detail: 'HTTP 503', deadLetteredAt: T0 },
    };
    const at = '2030-01-20T00:00:00.000Z';
    expect(decideDelivery({ type: 'Redrive', deliveryId: ID, at }, given([scheduled]))).toEqual([]);
    const redriven = decideDelivery({ type: 'Redrive', deliveryId: ID, at }, given([scheduled, dead]));
    expect(redriven).toEqual([{ type: 'DeliveryRedriven', schemaVersion: 1, data: { deliveryId: ID, redrivenAt: at } }]);
    expect(given([scheduled, dead, ...redriven])).toEqual({ status: 'pending', attempts: 0, windowStart: at });
    // The window restarts at the re-drive: a failure shortly after is retried, not dead-lettered again.
    expect(decideDelivery(outcome(failure, '2030-01-20T00:00:01.000Z'), given([scheduled, dead, ...redriven])).map((e) => e.type)).toEqual([
      'DeliveryAttemptFailed',
    ]);
  });

  it('dead-letters a delivery held back by an open breaker only once its retry window has passed', () => {
    const expire = (at: string): DeliveryCommand => ({ type: 'Expire', deliveryId: ID, at, maxAgeMs: POLICY.maxAgeMs, detail: 'circuit breaker open' });
    const inWindow = new Date(Date.parse(T0) + POLICY.maxAgeMs - 1).toISOString();
    const past = new Date(Date.parse(T0) + POLICY.maxAgeMs).toISOString();
    const failed = decideDelivery(outcome(failure), given([scheduled]));
    expect(decideDelivery(expire(inWindow), given([scheduled, ...failed]))).toEqual([]);
    expect(decideDelivery(expire(past), given([scheduled, ...failed]))).toEqual([
      { type: 'DeliveryDeadLettered', schemaVersion: 1, data: { deliveryId: ID, attempts: 1, reason: 'retries-exhausted', detail: 'circuit breaker open', deadLetteredAt: past } },
    ]);
    const delivered = given([scheduled, { type: 'DeliverySucceeded', schemaVersion: 1, data: { deliveryId: ID, attempt: 1, statusCode: 200, deliveredAt: T0 } }]);
    expect(decideDelivery(expire(past), delivered)).toEqual([]);
  });
});
