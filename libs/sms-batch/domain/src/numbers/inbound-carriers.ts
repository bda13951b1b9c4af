import type { NumberAssignedV1 } from '@seed/sms-batch-contracts';
import { routesMatching, type RoutingTable } from '../routing/route-selection';

/**
 * Whether a carrier may deliver inbound SMS to one of the platform's numbers. Any bound carrier
 * can send a deliver_sm for any number: one that is not the number's could forge a STOP, a START
 * that re-subscribes someone, or a HELP that makes the platform text anyone. The number's own
 * list says who may (`carriers`); without one, the carriers of every route that matches the number
 * (as a destination of its sub-account) do: those that carry its traffic. A number no route
 * matches names no carrier, and any may.
 */
export function mayDeliverInbound(carrierId: string, number: Pick<NumberAssignedV1, 'number' | 'accountId' | 'subAccountId' | 'carriers'>, table: RoutingTable): boolean {
  if (number.carriers && number.carriers.length > 0) return number.carriers.includes(carrierId);
  const routes = routesMatching(table.routes, { destination: number.number, accountId: number.accountId, subAccountId: number.subAccountId });
  if (routes.length === 0) return true;
  return routes.some((route) => route.carriers.some((carrier) => carrier.carrierId === carrierId));
}
