import RequestQueue from 'kafkajs/src/network/requestQueue';

/**
 * kafkajs 2.2.4 (the last release) re-arms a timer with a negative delay whenever a broker
 * connection has nothing pending and is not throttled, so every connection runs a 1 ms timer loop
 * forever once it has had a response: measurable CPU on an idle service, and more under load
 * (tulios/kafkajs#1556, fix proposed in #1667, unreleased). This applies the same guard: a check is
 * scheduled only when requests are waiting, at the end of a throttle or after a short interval.
 * Pushing a request that cannot go at once schedules a check itself, so nothing waits forever.
 */
const CHECK_PENDING_REQUESTS_INTERVAL_MS = 10;

let applied = false;

export function applyKafkaJsIdleTimerFix(): void {
  if (applied) return;
  applied = true;
  RequestQueue.prototype.scheduleCheckPendingRequests = function scheduleCheckPendingRequests(this: RequestQueue): void {
    if (this.throttleCheckTimeoutId || this.pending.length === 0) return;
    const throttledFor = this.throttledUntil - Date.now();
    this.throttleCheckTimeoutId = setTimeout(
      () => {
        this.throttleCheckTimeoutId = null;
        this.checkPendingRequests();
      },
      throttledFor > 0 ? throttledFor : CHECK_PENDING_REQUESTS_INTERVAL_MS,
    );
  };
}
