import type { CarrierConfiguredV1, RouteConfiguredV1 } from '@seed/sms-batch-contracts';

/** A carrier as a replica runs it: its URL with the password opened, and its limits as stored. */
export interface ActiveCarrier
  extends Pick<CarrierConfiguredV1, 'carrierId' | 'binds' | 'window' | 'maxPerSecond' | 'systemType' | 'source' | 'destination' | 'enabled'> {
  /** `smpp://system_id:password@host:port` (or smpps://): what its sessions connect with. */
  url: string;
  /** Permanent submit_sm_resp statuses (`0x0000000B`) that re-route instead of ending the message. */
  rerouteOnErrors: ReadonlySet<string>;
}

/** Carriers and routes as every replica applies them. */
export interface RoutingConfig {
  carriers: ActiveCarrier[];
  /** In table order. */
  routes: RouteConfiguredV1[];
}

/** Where a replica reads the table from (the routing-config stream, plus SMPP_URL's carrier). */
export interface RoutingConfigSource {
  load(): Promise<RoutingConfig>;
}

/** What a session is opened with: a change to any of it closes the carrier's sessions and opens new ones. */
export function sessionFingerprint(carrier: ActiveCarrier): string {
  return JSON.stringify([carrier.url, carrier.window, carrier.systemType]);
}
