import { selectCarrier, type RouteSelection, type SubmitSmPart } from '@seed/sms-batch-domain';
import type { ActiveCarrier } from '../carrier/active-carrier';
import type { CarrierFleet } from '../carrier/carrier-fleet';
import { routeDecisions } from '../carrier/carrier.metrics';
import type { OutboundMessage } from './outbound-queue.repository';

/** The route decider fed with what this replica knows now: the table, and which carriers can take traffic. */
export function chooseCarrier(fleet: CarrierFleet, message: OutboundMessage, tried: readonly string[] = message.tried): RouteSelection {
  const selection = selectCarrier(
    fleet.table(),
    { destination: message.destination, accountId: message.accountId, subAccountId: message.subAccountId, tried, pinned: message.pinnedCarrier },
    fleet.availability,
    Math.random,
  );
  countDecision(selection);
  return selection;
}

/** The carrier for a message now: the one it is locked to (some of its parts went there), else the route decider's choice. */
export function carrierFor(fleet: CarrierFleet, message: OutboundMessage): RouteSelection {
  const selection = chooseCarrier(fleet, message);
  return message.locked && message.pinnedCarrier ? lockedTo(message.pinnedCarrier, selection) : selection;
}

/** Whether a carrier of the message's route other than those tried can take it now (no decision counted). */
export function alternativeExists(fleet: CarrierFleet, message: OutboundMessage, tried: readonly string[]): boolean {
  const routable = { destination: message.destination, accountId: message.accountId, subAccountId: message.subAccountId, tried, pinned: null };
  return selectCarrier(fleet.table(), routable, fleet.availability, Math.random).kind === 'carrier';
}

function countDecision(selection: RouteSelection): void {
  switch (selection.kind) {
    case 'carrier':
      routeDecisions.inc({ route: selection.routeId ?? '', carrier: selection.carrierId, outcome: 'carrier' });
      return;
    case 'no-route':
      routeDecisions.inc({ route: '', carrier: '', outcome: 'no_route' });
      return;
    case 'wait':
      routeDecisions.inc({ route: selection.routeId ?? '', carrier: '', outcome: 'wait' });
      return;
    case 'unconfigured':
      return;
  }
}

/** The carrier's TON/NPI overrides, where it states any: some operators want them fixed. */
export function withCarrierNumbering(parts: SubmitSmPart[], carrier: ActiveCarrier | undefined): SubmitSmPart[] {
  if (!carrier) return parts;
  const { source, destination } = carrier;
  if (source.ton === null && source.npi === null && destination.ton === null && destination.npi === null) return parts;
  return parts.map((part) => ({
    ...part,
    sourceAddrTon: source.ton ?? part.sourceAddrTon,
    sourceAddrNpi: source.npi ?? part.sourceAddrNpi,
    destAddrTon: destination.ton ?? part.destAddrTon,
    destAddrNpi: destination.npi ?? part.destAddrNpi,
  }));
}

/** A message locked to a carrier goes there, under the route that matches it now (for its price), if any. */
function lockedTo(carrierId: string, selection: RouteSelection): RouteSelection {
  const routeId = selection.kind === 'carrier' || selection.kind === 'wait' ? selection.routeId : null;
  return { kind: 'carrier', routeId, carrierId, price: selection.kind === 'carrier' ? selection.price : null };
}
