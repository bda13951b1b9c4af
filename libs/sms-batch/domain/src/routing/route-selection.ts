import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { DEFAULT_CARRIER_ID, type RouteConfiguredV1, type RouteMatch, type RoutePrice } from '@seed/sms-batch-contracts';

/*
 * Which carrier a message goes to (product decisions, "Carriers and routes"): the first route of
 * the ordered table whose match takes the message, then a carrier of that route by its mode. Pure:
 * what is bound or throttled right now, and the random draw, come in.
 */

/** What routing reads of a message. */
export interface RoutableMessage {
  /** E.164 digits without `+`. */
  destination: string;
  accountId: string;
  subAccountId: string;
  /** Carriers this message already failed over from: not chosen again until every other was tried. */
  tried: readonly string[];
  /** A carrier chosen for it before (by a replica holding no session to it): kept while still valid. */
  pinned: string | null;
}

/** The table as the replicas apply it: routes in the order they are tried, carriers by id. */
export interface RoutingTable {
  routes: readonly RouteConfiguredV1[];
  /** Every configured carrier and whether it is enabled. */
  carriers: ReadonlyMap<string, { enabled: boolean }>;
}

/** What the replicas know of each carrier right now. */
export interface CarrierAvailability {
  /** At least one session bound to it, on any replica. */
  isBound(carrierId: string): boolean;
  /** It refused with throttling or temporary errors within the last few seconds. */
  isThrottled(carrierId: string): boolean;
}

export type RouteSelection =
  | { kind: 'carrier'; routeId: string | null; carrierId: string; price: RoutePrice | null }
  /** No route takes the message, or every carrier of its route is disabled or removed: it ends NO_ROUTE. */
  | { kind: 'no-route'; detail: string }
  /**
   * A route takes it, but none of its carriers can take it now: none is bound (`allTried` false),
   * or every bound one already failed it (`allTried`: start over with none tried, after a backoff).
   */
  | { kind: 'wait'; routeId: string | null; detail: string; allTried: boolean }
  /** No carrier is configured at all: messages wait queued, as they did before a carrier existed. */
  | { kind: 'unconfigured' };

/** Routes in the order they are tried: by position, then by id. */
export function orderRoutes<T extends { position: number; routeId: string }>(routes: Iterable<T>): T[] {
  return [...routes].sort((a, b) => a.position - b.position || (a.routeId < b.routeId ? -1 : a.routeId > b.routeId ? 1 : 0));
}

/**
 * With no route configured, every enabled carrier in failover order (`default` first, then by
 * id): `SMPP_URL` alone keeps working as a catch-all, and a second carrier added without routes
 * is its backup.
 */
export function implicitCatchAll(carriers: RoutingTable['carriers']): RouteConfiguredV1 {
  const ids = [...carriers.keys()].sort((a, b) => (a === DEFAULT_CARRIER_ID ? -1 : b === DEFAULT_CARRIER_ID ? 1 : a < b ? -1 : a > b ? 1 : 0));
  return {
    routeId: '',
    position: 0,
    match: { prefixes: [], countries: [], accountIds: [], subAccountIds: [] },
    mode: 'failover',
    carriers: ids.map((carrierId) => ({ carrierId, weight: 1 })),
    price: null,
    configuredAt: '',
  };
}

export function selectCarrier(
  table: RoutingTable,
  message: RoutableMessage,
  availability: CarrierAvailability,
  random: () => number,
): RouteSelection {
  if (table.carriers.size === 0) return { kind: 'unconfigured' };
  const route = table.routes.length === 0 ? implicitCatchAll(table.carriers) : matchingRoute(table.routes, message);
  if (!route) return { kind: 'no-route', detail: 'no route matches the message' };
  const routeId = route.routeId === '' ? null : route.routeId;
  const members = route.carriers.filter((c) => table.carriers.get(c.carrierId)?.enabled === true);
  if (members.length === 0) return { kind: 'no-route', detail: `every carrier of route ${routeId ?? '(catch-all)'} is disabled or removed` };

  const bound = members.filter((c) => availability.isBound(c.carrierId));
  if (bound.length === 0) return { kind: 'wait', routeId, detail: 'no carrier of the route is bound', allTried: false };
  const open = bound.filter((c) => !message.tried.includes(c.carrierId));
  // Every carrier that could take it failed it: the caller starts over from the first, after a backoff.
  if (open.length === 0) return { kind: 'wait', routeId, detail: 'every bound carrier of the route was tried', allTried: true };
  const chosen = (carrierId: string): RouteSelection => ({ kind: 'carrier', routeId, carrierId, price: route.price });
  if (message.pinned !== null && open.some((c) => c.carrierId === message.pinned)) return chosen(message.pinned);
  // A throttling carrier is passed over while another can take the message, and used when none can.
  const unthrottled = open.filter((c) => !availability.isThrottled(c.carrierId));
  const candidates = unthrottled.length > 0 ? unthrottled : open;
  if (route.mode === 'failover') return chosen((candidates[0] as (typeof candidates)[number]).carrierId);
  return chosen(drawByWeight(candidates, random));
}

/** Every route whose match takes the message, in table order. */
export function routesMatching(routes: readonly RouteConfiguredV1[], message: Pick<RoutableMessage, 'destination' | 'accountId' | 'subAccountId'>): RouteConfiguredV1[] {
  let country: string | null | undefined;
  const countryOf = () => (country === undefined ? (country = countryOfMsisdn(message.destination)) : country);
  return routes.filter((route) => matches(route.match, message, countryOf));
}

/** The first route, in table order, whose match takes the message. */
export function matchingRoute(routes: readonly RouteConfiguredV1[], message: Pick<RoutableMessage, 'destination' | 'accountId' | 'subAccountId'>): RouteConfiguredV1 | undefined {
  let country: string | null | undefined;
  const countryOf = () => (country === undefined ? (country = countryOfMsisdn(message.destination)) : country);
  return routes.find((route) => matches(route.match, message, countryOf));
}

function matches(match: RouteMatch, message: Pick<RoutableMessage, 'destination' | 'accountId' | 'subAccountId'>, countryOf: () => string | null): boolean {
  if (match.prefixes.length > 0 && !match.prefixes.some((prefix) => message.destination.startsWith(prefix))) return false;
  if (match.accountIds.length > 0 && !match.accountIds.includes(message.accountId)) return false;
  if (match.subAccountIds.length > 0 && !match.subAccountIds.includes(message.subAccountId)) return false;
  if (match.countries.length > 0) {
    const country = countryOf();
    if (country === null || !match.countries.includes(country)) return false;
  }
  return true;
}

/** ISO 3166-1 alpha-2 of an E.164 number (shared country codes resolved by the numbering plan), or null. */
export function countryOfMsisdn(digits: string): string | null {
  return parsePhoneNumberFromString(`+${digits}`)?.country ?? null;
}

function drawByWeight(candidates: readonly { carrierId: string; weight: number }[], random: () => number): string {
  const total = candidates.reduce((sum, c) => sum + Math.max(0, c.weight), 0);
  if (total <= 0) return (candidates[0] as { carrierId: string }).carrierId;
  let point = random() * total;
  for (const candidate of candidates) {
    point -= Math.max(0, candidate.weight);
    if (point < 0) return candidate.carrierId;
  }
  return (candidates[candidates.length - 1] as { carrierId: string }).carrierId;
}
