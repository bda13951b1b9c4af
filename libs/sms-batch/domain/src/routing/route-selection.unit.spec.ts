import { seededRandom } from '@seed/platform-testing';
import type { RouteConfiguredV1, RouteMatch } from '@seed/sms-batch-contracts';
import {
  countryOfMsisdn,
  matchingRoute,
  orderRoutes,
  selectCarrier,
  type CarrierAvailability,
  type RoutableMessage,
  type RouteSelection,
  type RoutingTable,
} from './route-selection';


const NO_MATCH: RouteMatch = { prefixes: [], countries: [], accountIds: [], subAccountIds: [] };
const routeOf = (routeId: string, overrides: Partial<Omit<RouteConfiguredV1, 'match'>> & { match?: Partial<RouteMatch> } = {}): RouteConfiguredV1 => ({
  routeId,
  position: 0,
  mode: 'failover',
  carriers: [{ carrierId: 'a', weight: 1 }],
  price: null,
  configuredAt: '2030-01-15T10:00:00.000Z',
  ...overrides,
  match: { ...NO_MATCH, ...overrides.match },
});
const carriersOf = (...ids: string[]): Map<string, { enabled: boolean }> => new Map(ids.map((id) => [id.replace(/^-/, ''), { enabled: !id.startsWith('-') }]));
const tableOf = (routes: RouteConfiguredV1[], carriers = carriersOf('a', 'b', 'c')): RoutingTable => ({ routes: orderRoutes(routes), carriers });
const message = (overrides: Partial<RoutableMessage> = {}): RoutableMessage => ({
  destination: '447400123456',
  accountId: 'acme',
  subAccountId: 'acme_hq',
  tried: [],
  pinned: null,
  ...overrides,
});
const availability = ({ unbound = [] as string[], throttled = [] as string[] } = {}): CarrierAvailability => ({
  isBound: (id) => !unbound.includes(id),
  isThrottled: (id) => throttled.includes(id),
});
const ALL_UP = availability();
const neverDrawn = (): number => {
  throw new Error('a failover route draws no random number');
};
const select = (table: RoutingTable, m = message(), up = ALL_UP, random: () => number = neverDrawn): RouteSelection => selectCarrier(table, m, up, random);
const matched = (routes: RouteConfiguredV1[], m: Partial<RoutableMessage>): string | undefined => matchingRoute(orderRoutes(routes), message(m))?.routeId;

describe('matching: the first route in table order whose match takes the message', () => {
  it('by destination prefix, the longest listed not preferred over table order', () => {
    const routes = [routeOf('uk', { position: 1, match: { prefixes: ['44'] } }), routeOf('uk-mobile', { position: 2, match: { prefixes: ['447'] } }), routeOf('de', { position: 3, match: { prefixes: ['49', '43'] } })];
    expect(matched(routes, { destination: '447400123456' })).toBe('uk');
    expect(matched(routes, { destination: '4915112345678' })).toBe('de');
    expect(matched(routes, { destination: '4366412345678' })).toBe('de');
    expect(matched(routes, { destination: '33612345678' })).toBeUndefined();
  });

  it('by country, shared calling codes told apart by the numbering plan', () => {
    expect([countryOfMsisdn('12025550123'), countryOfMsisdn('14165550123')]).toEqual(['US', 'CA']);
    expect([countryOfMsisdn('447400123456'), countryOfMsisdn('447781123456'), countryOfMsisdn('447797123456'), countryOfMsisdn('447624123456')]).toEqual(['GB', 'GG', 'JE', 'IM']);
    expect(countryOfMsisdn('999999')).toBeNull();
    const routes = [routeOf('ca', { position: 1, match: { countries: ['CA'] } }), routeOf('us', { position: 2, match: { countries: ['US'] } }), routeOf('gb', { position: 3, match: { countries: ['GB'] } })];
    expect(matched(routes, { destination: '14165550123' })).toBe('ca');
    expect(matched(routes, { destination: '12025550123' })).toBe('us');
    expect(matched(routes, { destination: '447400123456' })).toBe('gb');
    // +44 7781 is Guernsey's: a route for GB does not take it.
    expect(matched(routes, { destination: '447781123456' })).toBeUndefined();
    expect(matched(routes, { destination: '999999' })).toBeUndefined();
  });

  it('by account and by sub-account', () => {
    const routes = [routeOf('globex', { position: 1, match: { accountIds: ['globex', 'initech'] } }), routeOf('acme-eu', { position: 2, match: { subAccountIds: ['acme_eu'] } })];
    expect(matched(routes, { accountId: 'initech', subAccountId: 'initech_hq' })).toBe('globex');
    expect(matched(routes, { accountId: 'acme', subAccountId: 'acme_eu' })).toBe('acme-eu');
    expect(matched(routes, { accountId: 'acme', subAccountId: 'acme_hq' })).toBeUndefined();
  });

  it('every kind given must match (AND); within a kind any value (OR)', () => {
    const routes = [routeOf('acme-uk-de', { match: { prefixes: ['44', '49'], accountIds: ['acme'], subAccountIds: ['acme_hq', 'acme_eu'], countries: ['GB', 'DE'] } })];
    expect(matched(routes, { destination: '447400123456' })).toBe('acme-uk-de');
    expect(matched(routes, { destination: '4915112345678', subAccountId: 'acme_eu' })).toBe('acme-uk-de');
    expect(matched(routes, { destination: '447400123456', accountId: 'globex' })).toBeUndefined();
    expect(matched(routes, { destination: '447400123456', subAccountId: 'acme_us' })).toBeUndefined();
    expect(matched(routes, { destination: '33612345678' })).toBeUndefined();
    // The prefix matches (44) but the country is Guernsey.
    expect(matched(routes, { destination: '447781123456' })).toBeUndefined();
  });

  it('an empty match takes everything: a catch-all at the end of the table', () => {
    const routes = [routeOf('uk', { position: 1, match: { prefixes: ['44'] } }), routeOf('rest', { position: 100 })];
    expect(matched(routes, { destination: '447400123456' })).toBe('uk');
    expect(matched(routes, { destination: '33612345678' })).toBe('rest');
  });

  it('orders the table by position, then by route id', () => {
    const ordered = orderRoutes([routeOf('c', { position: 5 }), routeOf('b', { position: -1 }), routeOf('a', { position: 5 }), routeOf('d', { position: 0 })]);
    expect(ordered.map((r) => r.routeId)).toEqual(['b', 'd', 'a', 'c']);
    expect(matched([routeOf('z', { position: 1 }), routeOf('y', { position: 1 })], {})).toBe('y');
  });
});

describe('selecting a carrier of the matching route', () => {
  it('answers unconfigured when no carrier exists at all', () => {
    expect(select(tableOf([], new Map()))).toEqual({ kind: 'unconfigured' });
  });

  it('with no routes, uses every enabled carrier as a catch-all, default first, then by id', () => {
    const table = tableOf([], carriersOf('b', 'default', 'a'));
    expect(select(table)).toEqual({ kind: 'carrier', routeId: null, carrierId: 'default', price: null });
    expect(select(table, message({ tried: ['default'] }))).toMatchObject({ carrierId: 'a' });
    expect(select(tableOf([], carriersOf('-default', 'b')))).toMatchObject({ carrierId: 'b' });
    expect(select(tableOf([], carriersOf('-default')))).toEqual({ kind: 'no-route', detail: 'every carrier of route (catch-all) is disabled or removed' });
  });

  it('answers no-route when no route matches, or every carrier of the route is disabled or removed', () => {
    expect(select(tableOf([routeOf('de', { match: { prefixes: ['49'] } })]))).toEqual({ kind: 'no-route', detail: 'no route matches the message' });
    const disabled = tableOf([routeOf('uk', { carriers: [{ carrierId: 'a', weight: 1 }, { carrierId: 'gone', weight: 1 }] })], carriersOf('-a', 'b'));
    expect(select(disabled)).toEqual({ kind: 'no-route', detail: 'every carrier of route uk is disabled or removed' });
  });

  it('failover: the first carrier in order, skipping unbound, throttled, disabled and tried ones', () => {
    const table = tableOf([routeOf('uk', { carriers: ['a', 'b', 'c'].map((carrierId) => ({ carrierId, weight: 1 })), price: { amount: '0.0125', currency: 'EUR' } })]);
    expect(select(table)).toEqual({ kind: 'carrier', routeId: 'uk', carrierId: 'a', price: { amount: '0.0125', currency: 'EUR' } });
    expect(select(table, message(), availability({ unbound: ['a'] }))).toMatchObject({ carrierId: 'b' });
    expect(select(table, message(), availability({ throttled: ['a'] }))).toMatchObject({ carrierId: 'b' });
    expect(select(table, message({ tried: ['a'] }))).toMatchObject({ carrierId: 'b' });
    expect(select(table, message({ tried: ['a'] }), availability({ unbound: ['b'] }))).toMatchObject({ carrierId: 'c' });
    expect(select({ ...table, carriers: carriersOf('-a', 'b', 'c') })).toMatchObject({ carrierId: 'b' });
  });

  it('uses a throttled carrier when every open one is throttled (it is still the best there is)', () => {
    const table = tableOf([routeOf('uk', { carriers: [{ carrierId: 'a', weight: 1 }, { carrierId: 'b', weight: 1 }] })]);
    expect(select(table, message(), availability({ throttled: ['a', 'b'] }))).toMatchObject({ carrierId: 'a' });
    expect(select(table, message({ tried: ['a'] }), availability({ throttled: ['b'] }))).toMatchObject({ carrierId: 'b' });
  });

  it('keeps a pinned carrier while it is enabled, bound and untried', () => {
    const table = tableOf([routeOf('uk', { carriers: [{ carrierId: 'a', weight: 1 }, { carrierId: 'b', weight: 1 }] })]);
    expect(select(table, message({ pinned: 'b' }))).toMatchObject({ carrierId: 'b' });
    expect(select(table, message({ pinned: 'b' }), availability({ unbound: ['b'] }))).toMatchObject({ carrierId: 'a' });
    expect(select(table, message({ pinned: 'b', tried: ['b'] }))).toMatchObject({ carrierId: 'a' });
    expect(select({ ...table, carriers: carriersOf('a', '-b') }, message({ pinned: 'b' }))).toMatchObject({ carrierId: 'a' });
    expect(select(table, message({ pinned: 'c' }))).toMatchObject({ carrierId: 'a' });
  });

  it('waits when no carrier of the route is bound, or every bound one was tried (then it starts over)', () => {
    const table = tableOf([routeOf('uk', { carriers: [{ carrierId: 'a', weight: 1 }, { carrierId: 'b', weight: 1 }] })]);
    const none = { kind: 'wait', routeId: 'uk', detail: 'no carrier of the route is bound', allTried: false };
    const allTried = { kind: 'wait', routeId: 'uk', detail: 'every bound carrier of the route was tried', allTried: true };
    expect(select(table, message(), availability({ unbound: ['a', 'b'] }))).toEqual(none);
    // a failed it and b is down: a is the only one left, so the message starts over rather than waiting for b.
    expect(select(table, message({ tried: ['a'] }), availability({ unbound: ['b'] }))).toEqual(allTried);
    expect(select(table, message({ tried: ['a', 'b'] }))).toEqual(allTried);
    expect(select(tableOf([], carriersOf('default')), message(), availability({ unbound: ['default'] }))).toEqual({ ...none, routeId: null });
  });

});

describe('weighted routes split by weight', () => {
  const DRAWS = 100_000;

  function shares(weights: Record<string, number>, up = ALL_UP, seed = 20300115): Record<string, number> {
    const ids = Object.keys(weights);
    const table = tableOf([routeOf('split', { mode: 'weighted', carriers: ids.map((carrierId) => ({ carrierId, weight: weights[carrierId] as number })) })], carriersOf(...ids));
    const random = seededRandom(seed);
    const counts: Record<string, number> = Object.fromEntries(ids.map((id) => [id, 0]));
    for (let i = 0; i < DRAWS; i++) {
      const chosen = selectCarrier(table, message(), up, random);
      if (chosen.kind !== 'carrier') throw new Error(`no carrier: ${JSON.stringify(chosen)}`);
      counts[chosen.carrierId] = (counts[chosen.carrierId] ?? 0) + 1;
    }
    return Object.fromEntries(ids.map((id) => [id, (counts[id] as number) / DRAWS]));
  }

  /** Each share within 2% (relative) of its weight's share. */
  function expectWithin2Percent(actual: Record<string, number>, weights: Record<string, number>): void {
    const total = Object.values(weights).reduce((a, b) => a + b, 0);
    for (const [id, weight] of Object.entries(weights)) {
      const expected = weight / total;
      expect({ id, off: Math.abs((actual[id] as number) - expected) / expected < 0.02 }).toEqual({ id, off: true });
    }
  }

  it('70/30 over 100,000 draws', () => {
    const weights = { a: 70, b: 30 };
    expectWithin2Percent(shares(weights), weights);
  });

  it('a three-way split 50/30/20 over 100,000 draws', () => {
    const weights = { a: 5, b: 3, c: 2 };
    expectWithin2Percent(shares(weights), weights);
  });

  it('is repeatable: the same seed gives the same split', () => {
    expect(shares({ a: 70, b: 30 }, ALL_UP, 7)).toEqual(shares({ a: 70, b: 30 }, ALL_UP, 7));
  });

  it('shares an unbound or throttled carrier out among the others by their weights', () => {
    const split = shares({ a: 5, b: 3, c: 2 }, availability({ unbound: ['a'] }));
    expect(split['a']).toBe(0);
    expectWithin2Percent({ b: split['b'] as number, c: split['c'] as number }, { b: 3, c: 2 });
    expect(shares({ a: 70, b: 30 }, availability({ throttled: ['b'] }))).toEqual({ a: 1, b: 0 });
  });

  it('draws at the edges of the random range without leaving the route', () => {
    const table = tableOf([routeOf('split', { mode: 'weighted', carriers: [{ carrierId: 'a', weight: 70 }, { carrierId: 'b', weight: 30 }] })]);
    expect(selectCarrier(table, message(), ALL_UP, () => 0)).toMatchObject({ carrierId: 'a' });
    expect(selectCarrier(table, message(), ALL_UP, () => 0.6999)).toMatchObject({ carrierId: 'a' });
    expect(selectCarrier(table, message(), ALL_UP, () => 0.7)).toMatchObject({ carrierId: 'b' });
    expect(selectCarrier(table, message(), ALL_UP, () => 0.9999999999)).toMatchObject({ carrierId: 'b' });
  });
});
