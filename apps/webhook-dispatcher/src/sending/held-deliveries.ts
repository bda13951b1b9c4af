import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { WakeablePause } from '@seed/platform-event-store';
import type { AttemptOutcome } from '@seed/webhook-dispatcher-domain';
import type { ClaimedDelivery } from './claimed-delivery';
import type { DirectHeld } from './claimed-delivery';
import type { SenderOptions } from './sender-options';
import { SendingEndpoint } from './sending-endpoint';

/** An attempt's outcome, waiting to be recorded. */
export interface Outcome {
  delivery: ClaimedDelivery;
  outcome: AttemptOutcome;
  at: string;
}

/** A held delivery handed back unsent, waiting to be released: due again at `dueAt` (null: now). */
export interface Release {
  deliveryId: string;
  leaseToken: string;
  dueAt: Date | null;
}

/**
 * What one sender holds in memory: its endpoints (each with its waiting line and requests in
 * flight), how many deliveries it holds, and what waits to be written (outcomes, hand-backs, and
 * direct deliveries to write down). The parts of the sender share it; the wake-ups tell the claim
 * loop (`pause`) and the recorder (`flushPause`) that there is something for them.
 */
export class HeldDeliveries {
  readonly endpoints = new Map<string, SendingEndpoint>();
  readonly outcomes: Outcome[] = [];
  readonly toRelease: Release[] = [];
  /** Direct deliveries to write down: failed, not settled in time, or handed back. */
  readonly toWrite: { delivery: DirectHeld; inFlight: boolean }[] = [];
  /** Source events of direct deliveries that succeeded, to record as handled (SenderOptions.recordSent). */
  readonly sent: string[] = [];
  readonly holder: string;
  held = 0;
  /** Direct deliveries not settled yet (also counted in `held` while waiting or in flight). */
  direct = 0;
  running = false;
  readonly pause = new WakeablePause();
  readonly flushPause = new WakeablePause();

  constructor(readonly options: SenderOptions) {
    this.holder = options.holder ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  }

  endpoint(origin: string): SendingEndpoint {
    let endpoint = this.endpoints.get(origin);
    if (!endpoint) {
      endpoint = new SendingEndpoint();
      this.endpoints.set(origin, endpoint);
    }
    return endpoint;
  }

  /** A request is started only with this much of the grant left: it ends before the grant can. */
  startMarginMs(): number {
    return this.options.timeoutMs + 1000;
  }

  /** A direct delivery joins its endpoint's waiting line (the caller pumps it). */
  line(delivery: DirectHeld): void {
    delivery.direct.place = 'waiting';
    this.held++;
    const endpoint = this.endpoint(delivery.origin);
    endpoint.lastDirectAt = Date.now();
    endpoint.waiting.push(delivery);
  }

  /** A direct delivery and the later changes of its message waiting for it, to be written down (it `inFlight` or not started). */
  writeDownChain(delivery: DirectHeld, inFlight: boolean): void {
    delivery.direct.state = 'writing';
    this.toWrite.push({ delivery, inFlight });
    for (const follower of delivery.direct.followers.splice(0)) {
      follower.direct.state = 'writing';
      this.toWrite.push({ delivery: follower, inFlight: false });
    }
    this.flushPause.wake();
  }

  handBack(deliveries: ClaimedDelivery[], dueAt: Date | null): void {
    if (deliveries.length === 0) return;
    this.held -= deliveries.length;
    for (const d of deliveries) {
      // A direct delivery has no row to hand back: it is written down, due for any claim.
      if (d.direct?.state === 'memory') this.writeDownChain(d as DirectHeld, false);
      else this.toRelease.push({ deliveryId: d.deliveryId, leaseToken: d.leaseToken, dueAt });
    }
    this.flushPause.wake();
  }
}
