import type { ClaimedDelivery, HoldOffer } from './claimed-delivery';
import type { DirectDelivery, DirectOffer } from './direct-delivery';

/**
 * What the intake hands the sender, and all it knows of it: the sender's offer for the next
 * transaction, and its hand for what that transaction leased to it once committed; optionally its
 * offer of first attempts without a row, and the attempts themselves (settled, succeeded or written
 * down, before the intake commits their events' offsets). The sender never calls the intake.
 */
export interface SenderHandOver {
  offer(): HoldOffer | undefined;
  scheduled(held: readonly ClaimedDelivery[]): void;
  directOffer?(): DirectOffer | undefined;
  sendDirect?(direct: readonly DirectDelivery[]): Promise<void>;
}

/** The Nest token of the SenderHandOver (the WebhookSender). */
export const SENDER_HAND_OVER = Symbol('SenderHandOver');
