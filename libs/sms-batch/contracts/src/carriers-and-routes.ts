import type { CommandMessage } from '@seed/contracts';

/*
 * Carriers and routes (product decisions, "Carriers and routes"): data managed through the admin
 * API, stored as events in one stream of sms-batch's log, and applied by every sms-batch replica.
 * One stream keeps the table consistent: a route never names a carrier the same version lacks.
 */

/** The stream holding every carrier and route definition. */
export const ROUTING_CONFIG_STREAM = 'routing-config';

/** The carrier that `SMPP_URL` defines when it is set. */
export const DEFAULT_CARRIER_ID = 'default';

/** Lower-case slug: what the API, metrics and events call a carrier. */
export const CARRIER_ID_PATTERN = /^[a-z0-9][a-z0-9-]{0,39}$/;
/** Same shape for route ids. */
export const ROUTE_ID_PATTERN = /^[a-z0-9][a-z0-9-]{0,39}$/;

export type RouteMode = 'failover' | 'weighted';

/** TON/NPI overrides; null: the platform's choice per address (international, alphanumeric, ...). */
export interface AddressNumbering {
  ton: number | null;
  npi: number | null;
}

/** What an operator gives to create or replace a carrier (`PUT /admin/v1/carriers/{carrierId}`). */
export interface CarrierInput {
  /**
   * `smpp://system_id:password@host:port` or `smpps://...`; the password may be left out on a
   * replace to keep the stored one, and the whole URL (null) to keep the stored endpoint and password.
   */
  url: string | null;
  /**
   * The URL sealed with MESSAGE_SEALING_KEYS, as the gateway sends it (its `url` then null): the
   * carrier's password never crosses Kafka in clear. Wins over `url` when given.
   */
  sealedUrl?: string | null;
  /** Sessions the operator allows for this system_id, across every sms-batch replica. */
  binds: number;
  /** submit_sm in flight per session. */
  window: number;
  /** Submits per second for the whole carrier, across replicas; null: no cap. */
  maxPerSecond: number | null;
  systemType: string | null;
  source: AddressNumbering;
  destination: AddressNumbering;
  enabled: boolean;
  /** Permanent submit_sm_resp statuses (`0x0000000B`) that re-route instead of ending the message. */
  rerouteOnErrors: string[];
}

/** A carrier as stored: the URL without its password, the password sealed with the platform keyring. */
export interface CarrierConfiguredV1 {
  carrierId: string;
  tls: boolean;
  host: string;
  port: number;
  systemId: string;
  /** Sealed with MESSAGE_SEALING_KEYS (`@seed/platform-secrets`); never published, never returned. */
  sealedPassword: string;
  binds: number;
  window: number;
  maxPerSecond: number | null;
  systemType: string | null;
  source: AddressNumbering;
  destination: AddressNumbering;
  enabled: boolean;
  rerouteOnErrors: string[];
  configuredAt: string;
}

export interface CarrierRemovedV1 {
  carrierId: string;
  removedAt: string;
}

/** Which messages a route takes: every kind given must match; within a kind, any value. Empty: all. */
export interface RouteMatch {
  /** E.164 digit prefixes of the destination (`44`, `4479`). */
  prefixes: string[];
  /** ISO 3166-1 alpha-2 of the destination number. */
  countries: string[];
  accountIds: string[];
  subAccountIds: string[];
}

export interface RouteCarrier {
  carrierId: string;
  /** `weighted` routes: its share; ignored by `failover` routes (their order counts). */
  weight: number;
}

export interface RoutePrice {
  /** Per SMS part, a decimal string (`0.0125`). */
  amount: string;
  /** ISO 4217. */
  currency: string;
}

/** What an operator gives for a route (`PUT /admin/v1/routes/{routeId}`). */
export interface RouteInput {
  /** Lower first; ties by route id. */
  position: number;
  match: RouteMatch;
  mode: RouteMode;
  carriers: RouteCarrier[];
  price: RoutePrice | null;
}

export interface RouteConfiguredV1 extends RouteInput {
  routeId: string;
  configuredAt: string;
}

export interface RouteRemovedV1 {
  routeId: string;
  removedAt: string;
}

/** The carrier as the admin API shows it: never its password. */
export interface CarrierView extends Omit<CarrierInput, 'url'> {
  carrierId: string;
  /** The URL without its password. */
  url: string;
  configuredAt: string;
}

export interface RouteView extends RouteInput {
  routeId: string;
  configuredAt: string;
}

export interface RoutingTableView {
  carriers: CarrierView[];
  /** In the order they are tried. */
  routes: RouteView[];
}

export type PutCarrierCommand = CommandMessage<{ carrierId: string; carrier: CarrierInput }, 'PutCarrier'>;
export type RemoveCarrierCommand = CommandMessage<{ carrierId: string }, 'RemoveCarrier'>;
export type PutRouteCommand = CommandMessage<{ routeId: string; route: RouteInput }, 'PutRoute'>;
export type RemoveRouteCommand = CommandMessage<{ routeId: string }, 'RemoveRoute'>;
export type GetRoutingTableQuery = CommandMessage<Record<string, never>, 'GetRoutingTable'>;

/** Key of every routing command on the command topic: one partition, in order. */
export const ROUTING_COMMAND_KEY = ROUTING_CONFIG_STREAM;
