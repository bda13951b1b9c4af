import type { CarrierConfiguredV1, CarrierView, RouteConfiguredV1, RouteView, RoutingTableView } from '@seed/sms-batch-contracts';
import { carrierUrlWithoutPassword } from './carrier-url';
import type { RoutingConfigState } from './routing-config.decider';
import { orderRoutes, type RoutingTable } from './route-selection';

/** A carrier as the admin API shows it: the URL without its password, the sealed password nowhere. */
export function carrierView(carrier: CarrierConfiguredV1): CarrierView {
  return {
    carrierId: carrier.carrierId,
    url: carrierUrlWithoutPassword(carrier),
    binds: carrier.binds,
    window: carrier.window,
    maxPerSecond: carrier.maxPerSecond,
    systemType: carrier.systemType,
    source: carrier.source,
    destination: carrier.destination,
    enabled: carrier.enabled,
    rerouteOnErrors: carrier.rerouteOnErrors,
    configuredAt: carrier.configuredAt,
  };
}

export function routeView(route: RouteConfiguredV1): RouteView {
  const { routeId, position, match, mode, carriers, price, configuredAt } = route;
  return { routeId, position, match, mode, carriers, price, configuredAt };
}

/** Carriers by id, routes in the order they are tried. */
export function routingTableView(state: RoutingConfigState): RoutingTableView {
  return {
    carriers: [...state.carriers.values()].sort((a, b) => (a.carrierId < b.carrierId ? -1 : 1)).map(carrierView),
    routes: orderRoutes(state.routes.values()).map(routeView),
  };
}

/** The table as route selection reads it: routes in order, every carrier with whether it is enabled. */
export function routingTableOf(state: RoutingConfigState): RoutingTable {
  return { routes: orderRoutes(state.routes.values()), carriers: state.carriers };
}
