import type { NewEvent } from '@seed/contracts';
import type { MessageRef, MessageRoutedV1 } from '@seed/sms-batch-contracts';

/*
 * The routing side of the message aggregate: the decision behind each submission attempt
 * (MessageRouted), written by the lifecycle decider with the submission or the failover it led to.
 */

/** The routing decision behind a submission attempt (see MessageRoutedV1). */
export interface RoutingDecision {
  routeId: string | null;
  carrierId: string;
  attempt: number;
  price: MessageRoutedV1['price'];
}

/** errorCode of a message no route takes (product decisions, "Carriers and routes"). */
export const NO_ROUTE_ERROR_CODE = 'NO_ROUTE';

export function routed(
  ref: MessageRef,
  routing: RoutingDecision | undefined,
  outcome: MessageRoutedV1['outcome'],
  detail: string | null,
  at: string,
): NewEvent<MessageRoutedV1, 'MessageRouted'>[] {
  if (!routing) return [];
  const data: MessageRoutedV1 = { ...ref, routeId: routing.routeId, carrierId: routing.carrierId, attempt: routing.attempt, price: routing.price, outcome, detail, routedAt: at };
  return [{ type: 'MessageRouted', schemaVersion: 1, data }];
}
