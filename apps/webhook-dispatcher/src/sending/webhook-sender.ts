import type { Logger } from 'pino';
import type { ClaimedDelivery, HoldOffer } from './claimed-delivery';
import { ClaimLoop } from './claim-loop';
import { DeliveryPump } from './delivery-pump';
import type { DeliveryStore } from './delivery-store';
import type { DirectDelivery, DirectOffer } from './direct-delivery';
import { DirectSending } from './direct-sending';
import { HeldDeliveries } from './held-deliveries';
import { HoldOffers } from './hold-offers';
import { OutcomeRecorder } from './outcome-recorder';
import type { SenderHandOver } from './sender-hand-over';
import type { SecretsOf, SenderOptions } from './sender-options';
import type { WebhookHttpClient } from './webhook-http-client';

export type { SecretsOf, SenderOptions } from './sender-options';

/**
 * Sends due deliveries. The limits of an endpoint (origin) hold across every replica: the claim
 * grants this replica slots of the endpoint's concurrency and takes up no more deliveries than
 * their waiting line, none while the shared breaker is open, and one probe across all replicas
 * while it is half-open (DeliveryClaimer). The replica sends from its grant without asking again;
 * each recorded failure answers the breaker's state before it sends there again. So a slow or dead
 * endpoint holds only its own deliveries and never the room the others need.
 *
 * The sender's lifecycle over its parts: what it holds (HeldDeliveries), its claims (ClaimLoop),
 * what it takes from transactions (HoldOffers) and from the intake directly (DirectSending), the
 * requests (DeliveryPump) and the recording of their outcomes (OutcomeRecorder).
 */
export class WebhookSender implements SenderHandOver {
  private readonly state: HeldDeliveries;
  private readonly offers: HoldOffers;
  private readonly directs: DirectSending;
  private readonly claims: ClaimLoop;
  private readonly recorder: OutcomeRecorder;
  private loop: Promise<void> | undefined;
  private flushing: Promise<void> | undefined;

  constructor(
    private readonly store: DeliveryStore,
    private readonly http: WebhookHttpClient,
    secretsOf: SecretsOf,
    private readonly logger: Logger,
    options: SenderOptions,
  ) {
    this.state = new HeldDeliveries(options);
    const pump = new DeliveryPump(this.state, http);
    this.offers = new HoldOffers(this.state, store, secretsOf, pump, logger);
    this.directs = new DirectSending(this.state, pump, secretsOf, logger);
    this.claims = new ClaimLoop(this.state, store, this.offers, pump, logger);
    this.recorder = new OutcomeRecorder(this.state, store, pump, this.offers, logger);
  }

  start(): void {
    if (this.state.running) return;
    this.state.running = true;
    this.loop = this.claims.run();
    this.flushing = this.recorder.run();
  }

  /** Stops claiming, lets requests in flight finish and records them, hands back what waited and its slots. */
  async stop(): Promise<void> {
    const state = this.state;
    state.running = false;
    state.pause.wake();
    await this.loop;
    for (const endpoint of state.endpoints.values()) state.handBack(endpoint.waiting.splice(0), null);
    while (state.held > 0) await new Promise((r) => setTimeout(r, 20));
    state.flushPause.wake();
    await this.flushing;
    try {
      await this.store.releaseSlots(state.holder);
    } catch (error) {
      this.logger.warn({ err: error }, 'sending slots not handed back; they run out after the lease');
    }
    this.http.destroy();
  }

  /** New or re-driven deliveries are due: look now instead of at the next idle poll. */
  wake(): void {
    this.state.pause.wake();
  }

  /** An offer for one transaction that makes deliveries due (HoldOffers.offer). */
  offer(): HoldOffer | undefined {
    return this.offers.offer();
  }

  /** Deliveries an offer took, committed: sent as claimed ones are. */
  take(held: readonly ClaimedDelivery[]): void {
    this.offers.take(held);
  }

  /** Deliveries a committed transaction leased to the sender: taken, and a claim looks for more now. */
  scheduled(held: readonly ClaimedDelivery[]): void {
    this.take(held);
    this.wake();
  }

  /** An offer of first attempts without a row, for the intake's transaction (DirectSending.directOffer). */
  directOffer(): DirectOffer | undefined {
    return this.directs.directOffer();
  }

  /** First attempts the intake did not write down; resolves once each is settled (DirectSending.sendDirect). */
  sendDirect(items: readonly DirectDelivery[]): Promise<void> {
    return this.directs.sendDirect(items);
  }
}
