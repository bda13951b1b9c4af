import type { HeldSlot } from './bind-slots.repository';
import type { SmppCarrier } from './smpp-carrier';

/** A bind slot this replica holds, and the session it keeps open under it. */
export interface Held {
  slot: HeldSlot;
  session: SmppCarrier;
  fingerprint: string;
  /** Local time after which the lease may have run out unrenewed: the session is closed then. */
  validUntil: number;
  /**
   * Being closed (given back, or its carrier changed): still renewed, so that no other replica
   * opens a session in its place before this one is closed; released once it is.
   */
  closing: boolean;
}

export const slotKey = (slot: HeldSlot): string => `${slot.carrierId}#${slot.slot}`;

/**
 * The binds a replica should hold: an even split over the live replicas, the remainder to the
 * replicas after a per-carrier offset, so that one replica does not get every carrier's remainder.
 */
export function fairShare(binds: number, replicas: number, rank: number, carrierId: string): number {
  const n = Math.max(1, replicas);
  const offset = [...carrierId].reduce((sum, ch) => (sum * 31 + ch.charCodeAt(0)) % 997, 0);
  return Math.floor(binds / n) + ((rank - offset % n + n) % n < binds % n ? 1 : 0);
}
