import type { AttemptOutcome } from '@seed/webhook-dispatcher-domain';
import type { DirectHeld } from './claimed-delivery';
import type { HeldDeliveries } from './held-deliveries';
import type { HeldDelivery, SendingEndpoint } from './sending-endpoint';
import { attemptDelivery } from './webhook-attempt';
import type { WebhookHttpClient } from './webhook-http-client';

/**
 * Starts the waiting deliveries of an endpoint while its slots, breaker and leases let them go, and
 * takes in each attempt's end: an outcome to record, or (a direct delivery) settled or written down.
 */
export class DeliveryPump {
  constructor(
    private readonly state: HeldDeliveries,
    private readonly http: WebhookHttpClient,
  ) {}

  /** Starts waiting deliveries of one endpoint while its slots, breaker and leases let them go. */
  pump(origin: string): void {
    const state = this.state;
    const endpoint = state.endpoints.get(origin);
    if (!endpoint) return;
    // Stopping: what still waits is handed back by stop().
    while (state.running && endpoint.waiting.length > 0) {
      const now = Date.now();
      const until = endpoint.blockedUntil(now);
      if (until !== null) {
        state.handBack(endpoint.waiting.splice(0), new Date(until));
        break;
      }
      const next = endpoint.waiting[0] as HeldDelivery;
      // Held too long (a slow endpoint): its lease may run out mid-request and another dispatcher
      // could take it. Give it back instead of risking a second concurrent send.
      if (now - next.claimedAt > state.options.leaseMs - state.startMarginMs()) {
        state.handBack(endpoint.waiting.splice(0, 1), null);
        continue;
      }
      if (!endpoint.mayStart(now, state.options.endpointConcurrency, state.startMarginMs())) break;
      endpoint.waiting.shift();
      if (next.direct) next.direct.place = 'flight';
      endpoint.inFlight++;
      const startedAt = Date.now();
      void attemptDelivery(this.http, next).then((outcome) => {
        endpoint.answered(Date.now() - startedAt);
        this.ended(origin, endpoint, next, outcome);
      });
    }
    if (endpoint.idle() && state.endpoints.get(origin) === endpoint) state.endpoints.delete(origin);
  }

  private ended(origin: string, endpoint: SendingEndpoint, delivery: HeldDelivery, outcome: AttemptOutcome): void {
    const state = this.state;
    endpoint.inFlight--;
    state.held--;
    if (outcome.kind === 'failure') endpoint.verdictsDue++;
    const ticket = delivery.direct;
    const at = new Date().toISOString();
    if (ticket && ticket.state !== 'written') this.directEnded(endpoint, delivery as DirectHeld, { outcome, at });
    else if (ticket && delivery.leaseToken === '') {
      // Written down by another replica first (no lease of ours): the outcome is that replica's to record.
      if (outcome.kind === 'failure') endpoint.verdictsDue--;
    } else state.outcomes.push({ delivery, outcome, at });
    state.flushPause.wake();
    this.pump(origin);
    // Claim again only when a good part of the room is free, and this endpoint's waiting line is
    // down to a slots' worth: one claim per completion would cost a query per webhook, and earlier
    // wake-ups only claimed for endpoints fed by the intake's direct deliveries.
    if (state.held <= state.options.maxHeld / 2 && endpoint.held() <= state.options.endpointConcurrency) state.pause.wake();
  }

  /**
   * A direct delivery's attempt ended before it was written down: a success is settled without a
   * word to the database (unless its endpoint's breaker has failures to clear) and lets the next
   * change of its message go; a failure is written down leased to this replica, then recorded,
   * with the later changes behind it. One ended while being written down is recorded once it is.
   */
  private directEnded(endpoint: SendingEndpoint, delivery: DirectHeld, ended: { outcome: AttemptOutcome; at: string }): void {
    const state = this.state;
    const ticket = delivery.direct;
    if (ticket.state === 'writing') {
      ticket.outcome = ended;
      return;
    }
    if (ended.outcome.kind !== 'success') {
      ticket.outcome = ended;
      state.writeDownChain(delivery, true);
      return;
    }
    ticket.state = 'done';
    state.direct--;
    state.sent.push(ticket.scheduled.sourceEventId);
    ticket.settle();
    // Counted on the shared breaker only when it has something to clear (a delivery with no row
    // is skipped by the recording; its success still resets the breaker).
    if (!endpoint.clean()) state.outcomes.push({ delivery, ...ended });
    const [next, ...rest] = ticket.followers.splice(0);
    if (!next) return;
    next.direct.followers = rest;
    if (!state.running) state.writeDownChain(next, false);
    else {
      state.line(next);
      if (next.origin !== delivery.origin) this.pump(next.origin);
    }
  }
}
