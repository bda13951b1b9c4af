import type { NewEvent } from '@seed/contracts';
import {
  DEFAULT_CARRIER_ID,
  CARRIER_ID_PATTERN,
  ROUTE_ID_PATTERN,
  type CarrierConfiguredV1,
  type CarrierRemovedV1,
  type RouteConfiguredV1,
  type RouteInput,
  type RouteRemovedV1,
} from '@seed/sms-batch-contracts';
import type { CarrierEndpoint } from './carrier-url';
import { RoutingConfigError } from './routing-config.error';
import { validCarrierLimits, validRouteInput, type CarrierLimits } from './routing-config.validation';

/*
 * The routing table as one aggregate (stream `routing-config`): carriers and routes decided
 * together, so that a route never names a carrier the same version of the table lacks.
 */

export interface RoutingConfigState {
  carriers: Map<string, CarrierConfiguredV1>;
  routes: Map<string, RouteConfiguredV1>;
}

export type RoutingConfigEvent =
  | NewEvent<CarrierConfiguredV1, 'CarrierConfigured'>
  | NewEvent<CarrierRemovedV1, 'CarrierRemoved'>
  | NewEvent<RouteConfiguredV1, 'RouteConfigured'>
  | NewEvent<RouteRemovedV1, 'RouteRemoved'>;

/** A carrier as a command gives it: its URL parsed (`parseCarrierUrl`) and its password sealed by the handler. */
export interface CarrierSettings extends CarrierLimits {
  endpoint: CarrierEndpoint;
  /**
   * The password sealed with the platform keyring; null when the URL carried none, which keeps the
   * stored one of a carrier being replaced. The handler passes the stored sealed form when the
   * password given is the stored one, so that an unchanged PUT compares equal.
   */
  sealedPassword: string | null;
}

export type RoutingConfigCommand =
  | { type: 'PutCarrier'; carrierId: string; carrier: CarrierSettings }
  | { type: 'RemoveCarrier'; carrierId: string }
  | { type: 'PutRoute'; routeId: string; route: RouteInput }
  | { type: 'RemoveRoute'; routeId: string };

export const initialRoutingConfigState = (): RoutingConfigState => ({ carriers: new Map(), routes: new Map() });

/** A new state each time (the maps are copied): a state handed out is never changed underneath its holder. */
export function evolveRoutingConfig(state: RoutingConfigState, event: { type: string; data: unknown }): RoutingConfigState {
  const e = event as RoutingConfigEvent;
  switch (e.type) {
    case 'CarrierConfigured':
      return { ...state, carriers: new Map(state.carriers).set(e.data.carrierId, e.data) };
    case 'CarrierRemoved': {
      const carriers = new Map(state.carriers);
      carriers.delete(e.data.carrierId);
      return { ...state, carriers };
    }
    case 'RouteConfigured':
      return { ...state, routes: new Map(state.routes).set(e.data.routeId, e.data) };
    case 'RouteRemoved': {
      const routes = new Map(state.routes);
      routes.delete(e.data.routeId);
      return { ...state, routes };
    }
    default:
      // The stream holds only these four; anything else is not part of the table.
      return state;
  }
}

export const foldRoutingConfig = (events: readonly { type: string; data: unknown }[]): RoutingConfigState =>
  events.reduce(evolveRoutingConfig, initialRoutingConfigState());

/**
 * Pure: time comes in. Returns the events to append, none when the table already is what the
 * command asks for; throws a RoutingConfigError (nothing written) when it cannot apply.
 */
export function decideRoutingConfig(command: RoutingConfigCommand, state: RoutingConfigState, now: string): RoutingConfigEvent[] {
  switch (command.type) {
    case 'PutCarrier':
      return putCarrier(command.carrierId, command.carrier, state, now);
    case 'RemoveCarrier': {
      const { carrierId } = command;
      if (!state.carriers.has(carrierId)) throw new RoutingConfigError('unknown', `no carrier ${carrierId}`);
      const naming = [...state.routes.values()].filter((r) => r.carriers.some((c) => c.carrierId === carrierId)).map((r) => r.routeId);
      if (naming.length > 0) {
        throw new RoutingConfigError('conflict', `carrier ${carrierId} is named by route${naming.length > 1 ? 's' : ''} ${naming.sort().join(', ')}: change or remove ${naming.length > 1 ? 'them' : 'it'} first`);
      }
      return [{ type: 'CarrierRemoved', schemaVersion: 1, data: { carrierId, removedAt: now } }];
    }
    case 'PutRoute':
      return putRoute(command.routeId, command.route, state, now);
    case 'RemoveRoute': {
      if (!state.routes.has(command.routeId)) throw new RoutingConfigError('unknown', `no route ${command.routeId}`);
      return [{ type: 'RouteRemoved', schemaVersion: 1, data: { routeId: command.routeId, removedAt: now } }];
    }
  }
}

function putCarrier(carrierId: string, settings: CarrierSettings, state: RoutingConfigState, now: string): RoutingConfigEvent[] {
  requireId(carrierId, CARRIER_ID_PATTERN, 'carrierId');
  const limits = validCarrierLimits(settings);
  const stored = state.carriers.get(carrierId);
  const { tls, host, port, systemId } = settings.endpoint;
  // The stored password goes only where it went before: a replace that moves the carrier (scheme,
  // host, port) or binds as another system_id must give the password again, or a PUT could send
  // the carrier's password to an endpoint of the caller's choosing (or in clear, smpps -> smpp).
  if (settings.sealedPassword === null && stored && (stored.tls !== tls || stored.host !== host || stored.port !== port || stored.systemId !== systemId)) {
    throw new RoutingConfigError('invalid', 'the url must carry the password when the scheme, host, port or system_id changes: smpp://system_id:password@host:port');
  }
  const sealedPassword = settings.sealedPassword ?? stored?.sealedPassword;
  if (typeof sealedPassword !== 'string' || sealedPassword === '') {
    throw new RoutingConfigError('invalid', `the url of a new carrier must carry its password: smpp://system_id:password@host:port`);
  }
  const configured: CarrierConfiguredV1 = { carrierId, tls, host, port, systemId, sealedPassword, ...limits, configuredAt: now };
  if (stored && sameSettings(stored, configured, 'configuredAt')) return [];
  return [{ type: 'CarrierConfigured', schemaVersion: 1, data: configured }];
}

function putRoute(routeId: string, input: RouteInput, state: RoutingConfigState, now: string): RoutingConfigEvent[] {
  requireId(routeId, ROUTE_ID_PATTERN, 'routeId');
  const route = validRouteInput(input);
  // `default` may be SMPP_URL's carrier, which lives in the environment, not in this stream: a route
  // may name it either way (without SMPP_URL and without a stored `default`, it is a removed carrier).
  const missing = route.carriers.map((c) => c.carrierId).filter((id) => id !== DEFAULT_CARRIER_ID && !state.carriers.has(id));
  if (missing.length > 0) {
    throw new RoutingConfigError('conflict', `carrier${missing.length > 1 ? 's' : ''} ${missing.join(', ')} ${missing.length > 1 ? 'are' : 'is'} not configured: create ${missing.length > 1 ? 'them' : 'it'} first`);
  }
  const configured: RouteConfiguredV1 = { routeId, ...route, configuredAt: now };
  const stored = state.routes.get(routeId);
  if (stored && sameSettings(stored, configured, 'configuredAt')) return [];
  return [{ type: 'RouteConfigured', schemaVersion: 1, data: configured }];
}

function requireId(id: unknown, pattern: RegExp, name: string): void {
  if (typeof id !== 'string' || !pattern.test(id)) {
    throw new RoutingConfigError('invalid', `${name} must be 1-40 lower-case letters, digits and -, starting with a letter or digit`);
  }
}

/** Equal but for `ignored`, whatever the order of object keys (a stored event went through JSON). */
function sameSettings<T extends object>(a: T, b: T, ignored: keyof T): boolean {
  const { [ignored]: _a, ...restA } = a;
  const { [ignored]: _b, ...restB } = b;
  return canonical(restA) === canonical(restB);
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
