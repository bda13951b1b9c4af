import type { Logger } from 'pino';
import type { DataSource } from 'typeorm';
import type { EventStore } from '@seed/platform-event-store';
import { DEFAULT_CARRIER_ID, type CarrierConfiguredV1 } from '@seed/sms-batch-contracts';
import { orderRoutes } from '@seed/sms-batch-domain';
import { readRoutingConfig, type CarrierPasswords, type RoutingConfigSnapshot } from '../routing-config';
import type { ActiveCarrier, RoutingConfig, RoutingConfigSource } from './active-carrier';
import { parseSmppUrl, smppUrlOf } from './smpp-url';

/** SMPP_URL's carrier: what a deployment configured by environment alone sends to. */
export interface EnvironmentCarrier {
  url: string;
  binds: number;
  window: number;
}

/**
 * The routing table as a replica applies it: the `routing-config` stream (read incrementally every
 * tick), with SMPP_URL's carrier `default` added unless the stream defines one of that id.
 * Passwords are opened here, once per change; a carrier whose password cannot be opened (its key
 * left the keyring) is left out with an error in the log rather than bound with a wrong password.
 */
export class StoredRoutingConfig implements RoutingConfigSource {
  private snapshot: RoutingConfigSnapshot | undefined;
  private config: RoutingConfig | undefined;

  constructor(
    private readonly dataSource: DataSource,
    private readonly store: EventStore,
    private readonly passwords: CarrierPasswords,
    private readonly environment: EnvironmentCarrier | null,
    private readonly logger: Logger,
  ) {}

  async load(): Promise<RoutingConfig> {
    const next = await readRoutingConfig(this.dataSource, this.store, this.snapshot);
    if (this.config && next === this.snapshot) return this.config;
    this.snapshot = next;
    const carriers = [...next.state.carriers.values()].flatMap((c) => this.activate(c));
    if (this.environment && !next.state.carriers.has(DEFAULT_CARRIER_ID)) carriers.push(fromEnvironment(this.environment));
    this.config = { carriers, routes: orderRoutes(next.state.routes.values()) };
    return this.config;
  }

  private activate(stored: CarrierConfiguredV1): ActiveCarrier[] {
    let password: string;
    try {
      password = this.passwords.open(stored.sealedPassword);
    } catch (error) {
      this.logger.error({ err: error, carrier: stored.carrierId }, 'carrier password cannot be opened; carrier left out until it is set again');
      return [];
    }
    return [
      {
        carrierId: stored.carrierId,
        url: smppUrlOf({ tls: stored.tls, host: stored.host, port: stored.port, systemId: stored.systemId, password }),
        binds: stored.binds,
        window: stored.window,
        maxPerSecond: stored.maxPerSecond,
        systemType: stored.systemType,
        source: stored.source,
        destination: stored.destination,
        enabled: stored.enabled,
        rerouteOnErrors: new Set(stored.rerouteOnErrors.map((code) => code.toUpperCase().replace(/^0X/, '0x'))),
      },
    ];
  }
}

function fromEnvironment(environment: EnvironmentCarrier): ActiveCarrier {
  parseSmppUrl(environment.url); // validated at boot already; fails loudly if not
  return {
    carrierId: DEFAULT_CARRIER_ID,
    url: environment.url,
    binds: environment.binds,
    window: environment.window,
    maxPerSecond: null,
    systemType: null,
    source: { ton: null, npi: null },
    destination: { ton: null, npi: null },
    enabled: true,
    rerouteOnErrors: new Set(),
  };
}
