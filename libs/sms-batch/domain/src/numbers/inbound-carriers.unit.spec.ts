import type { RouteConfiguredV1 } from '@seed/sms-batch-contracts';
import type { RoutingTable } from '../routing/route-selection';
import { mayDeliverInbound } from './inbound-carriers';

const route = (routeId: string, prefixes: string[], carrierIds: string[]): RouteConfiguredV1 =>
  ({ routeId, position: 0, match: { prefixes, countries: [], accountIds: [], subAccountIds: [] }, mode: 'failover', carriers: carrierIds.map((carrierId) => ({ carrierId, weight: 1 })), price: null }) as unknown as RouteConfiguredV1;
const table = (...routes: RouteConfiguredV1[]): RoutingTable => ({ routes, carriers: new Map() }) as unknown as RoutingTable;
const UK_NUMBER = { number: '447911100100', accountId: 'acme', subAccountId: 'acme_hq' };

describe('mayDeliverInbound', () => {
  it('holds a number with its own list to that list, whatever the routes say', () => {
    const routes = table(route('uk', ['44'], ['carrier-a', 'carrier-b']));
    expect(mayDeliverInbound('carrier-b', { ...UK_NUMBER, carriers: ['carrier-b'] }, routes)).toBe(true);
    expect(mayDeliverInbound('carrier-a', { ...UK_NUMBER, carriers: ['carrier-b'] }, routes)).toBe(false);
  });

  it('lets the carriers of every route that matches the number deliver to it, and no other', () => {
    const routes = table(route('uk-primary', ['44'], ['carrier-a']), route('uk-backup', ['447'], ['carrier-b']), route('us', ['1'], ['carrier-us']));
    expect(mayDeliverInbound('carrier-a', UK_NUMBER, routes)).toBe(true);
    expect(mayDeliverInbound('carrier-b', UK_NUMBER, routes)).toBe(true);
    expect(mayDeliverInbound('carrier-us', UK_NUMBER, routes)).toBe(false);
  });

  it('lets any carrier deliver to a number no route matches: nothing names its carriers', () => {
    expect(mayDeliverInbound('carrier-us', UK_NUMBER, table(route('us', ['1'], ['carrier-us'])))).toBe(true);
  });
});
