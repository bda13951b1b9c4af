import { Injectable } from '@nestjs/common';
import { parseKeyring, sealText, type Keyring } from '@seed/platform-secrets';
import {
  ROUTING_COMMAND_KEY,
  SMS_BATCH_COMMAND_TOPIC,
  type CarrierInput,
  type CarrierView,
  type RouteInput,
  type RouteView,
  type RoutingTableView,
} from '@seed/sms-batch-contracts';
import { CommandClient } from '../commands/command-client';
import { GatewayConfig } from '../gateway.config';
import { ApiError } from '../http/api-error';
import type { PutCarrierDto, PutRouteDto } from './routing.dto';

/** Carrier and route ids (the contract's CARRIER_ID_PATTERN and ROUTE_ID_PATTERN). */
export const ROUTING_ID = /^[a-z0-9][a-z0-9-]{0,39}$/;
const ID_RULE = 'must be 1-40 lower-case letters, digits and -, starting with a letter or digit';

/**
 * sms-batch owns the routing table; the gateway checks a request's shape, fills in the defaults and
 * asks it. Every routing command goes with one key, so sms-batch decides them one after another.
 */
@Injectable()
export class RoutingCommands {
  private readonly keys: Keyring;

  constructor(
    private readonly commands: CommandClient,
    config: GatewayConfig,
  ) {
    this.keys = parseKeyring(config.MESSAGE_SEALING_KEYS);
  }

  table(): Promise<RoutingTableView> {
    return this.send('GetRoutingTable', {});
  }

  putCarrier(carrierId: string, body: PutCarrierDto): Promise<CarrierView> {
    // The URL carries the carrier's password: it crosses Kafka (and stays in the command topic's
    // retention) sealed, as agent tokens do; sms-batch opens it with the same keyring.
    const { url, ...carrier } = carrierInput(body);
    return this.send('PutCarrier', { carrierId, carrier: { ...carrier, url: null, sealedUrl: url === null ? null : sealText(this.keys, url) } });
  }

  removeCarrier(carrierId: string): Promise<unknown> {
    return this.send('RemoveCarrier', { carrierId });
  }

  putRoute(routeId: string, body: PutRouteDto): Promise<RouteView> {
    return this.send('PutRoute', { routeId, route: routeInput(body) });
  }

  removeRoute(routeId: string): Promise<unknown> {
    return this.send('RemoveRoute', { routeId });
  }

  private send<TResult>(type: string, data: object): Promise<TResult> {
    return this.commands.send<TResult, object>(SMS_BATCH_COMMAND_TOPIC, ROUTING_COMMAND_KEY, type, data);
  }
}

/** A PUT's id: one that could never be stored is refused before anything is asked. */
export function putId(id: string, name: 'carrierId' | 'routeId'): string {
  if (!ROUTING_ID.test(id)) throw ApiError.badRequest(`${name} ${ID_RULE}`);
  return id;
}

/** A GET's or DELETE's id: one that could never be stored is not looked up (a NUL byte would reach PostgreSQL). */
export function knownId(id: string, what: 'carrier' | 'route'): string {
  if (!ROUTING_ID.test(id)) throw ApiError.notFound(`no ${what} ${JSON.stringify(id)}`);
  return id;
}

/** The carrier as the command states it: every field, omitted ones at their defaults. */
export function carrierInput(body: PutCarrierDto): CarrierInput {
  return {
    url: body.url ?? null,
    binds: body.binds ?? 1,
    window: body.window ?? 100,
    maxPerSecond: body.maxPerSecond ?? null,
    systemType: body.systemType ?? null,
    source: { ton: body.source?.ton ?? null, npi: body.source?.npi ?? null },
    destination: { ton: body.destination?.ton ?? null, npi: body.destination?.npi ?? null },
    enabled: body.enabled ?? true,
    rerouteOnErrors: body.rerouteOnErrors ?? [],
  };
}

export function routeInput(body: PutRouteDto): RouteInput {
  return {
    position: body.position ?? 0,
    match: {
      prefixes: body.match?.prefixes ?? [],
      countries: body.match?.countries ?? [],
      accountIds: body.match?.accountIds ?? [],
      subAccountIds: body.match?.subAccountIds ?? [],
    },
    mode: body.mode ?? 'failover',
    carriers: body.carriers.map((c) => ({ carrierId: c.carrierId, weight: c.weight ?? 1 })),
    price: body.price ? { amount: body.price.amount, currency: body.price.currency } : null,
  };
}
