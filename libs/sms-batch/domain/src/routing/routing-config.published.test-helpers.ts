import type { EventEnvelope, NewEvent } from '@seed/contracts';
import { ROUTING_CONFIG_STREAM, type RouteInput } from '@seed/sms-batch-contracts';
import { decideRoutingConfig, evolveRoutingConfig, initialRoutingConfigState, type CarrierSettings, type RoutingConfigCommand } from './routing-config.decider';

/*
 * The routing-config events as sms-batch publishes them, for the specs that keep docs/asyncapi.json
 * and docs/events.md in step with the decider: decided in turn on one `routing-config` stream,
 * wrapped in the envelope of an admin request, and without the carrier's sealed password, as
 * apps/sms-batch/src/public-events.ts publishes CarrierConfigured.
 */

export type PublishedEvent = Required<EventEnvelope>;

export const CONFIG_TYPES = ['CarrierConfigured', 'CarrierRemoved', 'RouteConfigured', 'RouteRemoved'];

/** The admin request behind the documented examples. */
export const CONFIG_CORRELATION_ID = '5d1c9e2a-7b3f-4e8d-a6c0-2f9b8e7d6c5a';
const documentedCommandId = (position: number) => `6e2d0f3b-8c4a-4f9e-b7d1-3a0c9f8e7d${String(position).padStart(2, '0')}`;

const carrier = (overrides: Partial<CarrierSettings> = {}): CarrierSettings => ({
  endpoint: { tls: false, host: 'smsc.carrier-a.example', port: 2775, systemId: 'acme' },
  sealedPassword: 'sealed.v1.k1.aXZpdml2aXZpdml2.c2VjcmV0LWJvZHktYW5kLXRhZw',
  binds: 4,
  window: 100,
  maxPerSecond: 500,
  systemType: null,
  source: { ton: null, npi: null },
  destination: { ton: 1, npi: 1 },
  enabled: true,
  rerouteOnErrors: ['0x0000000B'],
  ...overrides,
});
const route = (overrides: Partial<RouteInput> = {}): RouteInput => ({
  position: 10,
  match: { prefixes: ['44'], countries: [], accountIds: [], subAccountIds: [] },
  mode: 'weighted',
  carriers: [
    { carrierId: 'carrier-a', weight: 70 },
    { carrierId: 'carrier-b', weight: 30 },
  ],
  price: { amount: '0.0125', currency: 'EUR' },
  ...overrides,
});

/** The documented sequence: two carriers, a route between them, then both taken away again. */
export const DOCUMENTED_CONFIG: { command: RoutingConfigCommand; at: string }[] = [
  { command: { type: 'PutCarrier', carrierId: 'carrier-a', carrier: carrier() }, at: '2030-01-15T09:00:00.000Z' },
  {
    command: {
      type: 'PutCarrier',
      carrierId: 'carrier-b',
      carrier: carrier({ endpoint: { tls: true, host: 'smpp.carrier-b.example', port: 3550, systemId: 'acme' }, binds: 2, maxPerSecond: null, systemType: 'VMA', destination: { ton: null, npi: null }, rerouteOnErrors: [] }),
    },
    at: '2030-01-15T09:01:00.000Z',
  },
  { command: { type: 'PutRoute', routeId: 'uk-split', route: route() }, at: '2030-01-15T09:02:00.000Z' },
  { command: { type: 'RemoveRoute', routeId: 'uk-split' }, at: '2030-01-16T09:00:00.000Z' },
  { command: { type: 'RemoveCarrier', carrierId: 'carrier-b' }, at: '2030-01-16T09:01:00.000Z' },
];

/** More paths than the documented one, so that every nullable field is seen null and set. */
const VARIED_CONFIG: { command: RoutingConfigCommand; at: string }[] = [
  ...DOCUMENTED_CONFIG.slice(0, 2),
  { command: { type: 'PutRoute', routeId: 'all', route: route({ position: -1, mode: 'failover', match: { prefixes: [], countries: ['GB', 'DE'], accountIds: ['acme'], subAccountIds: ['acme_hq'] }, price: null, carriers: [{ carrierId: 'carrier-b', weight: 1 }] }) }, at: '2030-01-15T09:03:00.000Z' },
  // A replace without the password, to the same endpoint (the stored password goes nowhere else).
  {
    command: {
      type: 'PutCarrier',
      carrierId: 'carrier-b',
      carrier: carrier({ endpoint: { tls: true, host: 'smpp.carrier-b.example', port: 3550, systemId: 'acme' }, sealedPassword: null, enabled: false, maxPerSecond: 50, source: { ton: 5, npi: 0 } }),
    },
    at: '2030-01-15T09:04:00.000Z',
  },
];

/** The events of `steps` decided in turn, as the relay publishes them. */
export function publishedConfig(steps: { command: RoutingConfigCommand; at: string }[]): PublishedEvent[] {
  let state = initialRoutingConfigState();
  const published: PublishedEvent[] = [];
  for (const { command, at } of steps) {
    for (const event of decideRoutingConfig(command, state, at)) {
      state = evolveRoutingConfig(state, event);
      const position = published.length + 1;
      published.push(envelope(event, position, at));
    }
  }
  return published;
}

function envelope(event: NewEvent, position: number, at: string): PublishedEvent {
  const { sealedPassword: _sealed, ...data } = event.data as Record<string, unknown>;
  return {
    eventId: `7f3e1a4c-9d5b-4a0f-8c2e-4b1d0a9f8e${String(position).padStart(2, '0')}`,
    type: event.type,
    schemaVersion: event.schemaVersion,
    streamId: ROUTING_CONFIG_STREAM,
    streamPosition: position,
    globalPosition: String(900 + position),
    occurredAt: at,
    correlationId: CONFIG_CORRELATION_ID,
    causationId: documentedCommandId(position),
    traceparent: null,
    data: event.type === 'CarrierConfigured' ? data : event.data,
  };
}

export const documentedConfigEvents = (): PublishedEvent[] => publishedConfig(DOCUMENTED_CONFIG);
export const variedConfigEvents = (): PublishedEvent[] => [...publishedConfig(DOCUMENTED_CONFIG), ...publishedConfig(VARIED_CONFIG)];
