import type { CarrierConfiguredV1, RouteConfiguredV1, RouteInput } from '@seed/sms-batch-contracts';
import {
  decideRoutingConfig,
  evolveRoutingConfig,
  foldRoutingConfig,
  initialRoutingConfigState,
  type CarrierSettings,
  type RoutingConfigCommand,
  type RoutingConfigEvent,
  type RoutingConfigState,
} from './routing-config.decider';
import { RoutingConfigError, type RoutingConfigErrorCode } from './routing-config.error';
import { routingTableView } from './routing-table.view';

const T0 = '2030-01-15T10:00:00.000Z';
const T1 = '2030-01-15T10:05:00.000Z';

const settings = (overrides: Partial<CarrierSettings> = {}): CarrierSettings => ({
  endpoint: { tls: false, host: 'smsc-a.example', port: 2775, systemId: 'seed' },
  sealedPassword: 'sealed.v1.k1.iv.pw-a',
  binds: 1,
  window: 100,
  maxPerSecond: null,
  systemType: null,
  source: { ton: null, npi: null },
  destination: { ton: null, npi: null },
  enabled: true,
  rerouteOnErrors: [],
  ...overrides,
});
const route = (overrides: Partial<RouteInput> = {}): RouteInput => ({
  position: 10,
  match: { prefixes: [], countries: [], accountIds: [], subAccountIds: [] },
  mode: 'failover',
  carriers: [{ carrierId: 'a', weight: 1 }],
  price: null,
  ...overrides,
});
const putCarrier = (carrierId: string, carrier = settings()): RoutingConfigCommand => ({ type: 'PutCarrier', carrierId, carrier });
const putRoute = (routeId: string, input = route()): RoutingConfigCommand => ({ type: 'PutRoute', routeId, route: input });

/** Given the commands decided in turn (at T0), the state they leave. */
function given(...commands: RoutingConfigCommand[]): RoutingConfigState {
  return commands.reduce((state, command) => decideRoutingConfig(command, state, T0).reduce(evolveRoutingConfig, state), initialRoutingConfigState());
}
const when = (state: RoutingConfigState, command: RoutingConfigCommand): RoutingConfigEvent[] => decideRoutingConfig(command, state, T1);

function refused(state: RoutingConfigState, command: RoutingConfigCommand): { code: RoutingConfigErrorCode; message: string } {
  try {
    when(state, command);
  } catch (error) {
    if (!(error instanceof RoutingConfigError)) throw error;
    return { code: error.code, message: error.message };
  }
  throw new Error(`${command.type} was not refused`);
}

describe('carriers', () => {
  it('configures a new carrier with its endpoint, sealed password and limits', () => {
    expect(when(initialRoutingConfigState(), putCarrier('a', settings({ binds: 4, maxPerSecond: 50 })))).toEqual([
      {
        type: 'CarrierConfigured',
        schemaVersion: 1,
        data: {
          carrierId: 'a',
          tls: false,
          host: 'smsc-a.example',
          port: 2775,
          systemId: 'seed',
          sealedPassword: 'sealed.v1.k1.iv.pw-a',
          binds: 4,
          window: 100,
          maxPerSecond: 50,
          systemType: null,
          source: { ton: null, npi: null },
          destination: { ton: null, npi: null },
          enabled: true,
          rerouteOnErrors: [],
          configuredAt: T1,
        } satisfies CarrierConfiguredV1,
      },
    ]);
  });

  it('refuses a new carrier without a password', () => {
    expect(refused(initialRoutingConfigState(), putCarrier('a', settings({ sealedPassword: null })))).toMatchObject({ code: 'invalid', message: expect.stringContaining('password') });
  });

  it('keeps the stored sealed password when a replace carries none', () => {
    const [event] = when(given(putCarrier('a')), putCarrier('a', settings({ sealedPassword: null, window: 50 })));
    expect(event).toMatchObject({ type: 'CarrierConfigured', data: { sealedPassword: 'sealed.v1.k1.iv.pw-a', window: 50 } });
  });

  it.each([
    ['the scheme (smpps to smpp)', { tls: false }],
    ['the host', { host: 'elsewhere.example.net' }],
    ['the port', { port: 2776 }],
    ['the system_id', { systemId: 'other' }],
  ])('refuses to keep the stored password when a replace changes %s without giving it', (_what, change) => {
    const state = given(putCarrier('a', settings({ endpoint: { tls: true, host: 'smsc.example.net', port: 2775, systemId: 'seed' } })));
    const moved = settings({ sealedPassword: null, endpoint: { tls: true, host: 'smsc.example.net', port: 2775, systemId: 'seed', ...change } });
    expect(refused(state, putCarrier('a', moved))).toMatchObject({ code: 'invalid', message: expect.stringContaining('must carry the password') });
    // With the password, the move is taken.
    expect(when(state, putCarrier('a', { ...moved, sealedPassword: 'sealed.v1.k1.iv.pw-c' }))).toHaveLength(1);
  });

  it('replaces the password when a replace carries one', () => {
    const [event] = when(given(putCarrier('a')), putCarrier('a', settings({ sealedPassword: 'sealed.v1.k1.iv.pw-b' })));
    expect(event?.data).toMatchObject({ sealedPassword: 'sealed.v1.k1.iv.pw-b' });
  });

  it('appends nothing for a PUT equal to what is stored, with or without the password', () => {
    const state = given(putCarrier('a', settings({ rerouteOnErrors: ['0x0000000B'] })));
    expect(when(state, putCarrier('a', settings({ rerouteOnErrors: ['0x0000000b'] })))).toEqual([]);
    expect(when(state, putCarrier('a', settings({ sealedPassword: null, rerouteOnErrors: ['0x0000000B'] })))).toEqual([]);
  });

  it('normalises error codes (capitals, no repeats) and an empty systemType', () => {
    const [event] = when(initialRoutingConfigState(), putCarrier('a', settings({ rerouteOnErrors: ['0x0000000b', '0x00000058', '0x0000000B'], systemType: '' })));
    expect(event?.data).toMatchObject({ rerouteOnErrors: ['0x0000000B', '0x00000058'], systemType: null });
  });

  it.each<[string, Partial<CarrierSettings> | { carrierId: string }, string]>([
    ['an id with capitals', { carrierId: 'Carrier-A' }, 'carrierId must be'],
    ['an id of 41 characters', { carrierId: 'a'.repeat(41) }, 'carrierId must be'],
    ['binds 0', { binds: 0 }, 'binds must be an integer from 1 to 64'],
    ['binds 65', { binds: 65 }, 'binds must be an integer from 1 to 64'],
    ['binds 1.5', { binds: 1.5 }, 'binds must be'],
    ['window 0', { window: 0 }, 'window must be an integer from 1 to 1000'],
    ['window 1001', { window: 1001 }, 'window must be'],
    ['maxPerSecond 0', { maxPerSecond: 0 }, 'maxPerSecond must be an integer from 1 to 100000, or null'],
    ['maxPerSecond 100001', { maxPerSecond: 100_001 }, 'maxPerSecond must be'],
    ['a systemType of 13 characters', { systemType: 'abcdefghijklm' }, 'systemType must be at most 12'],
    ['source TON 7', { source: { ton: 7, npi: null } }, 'source.ton must be an integer from 0 to 6'],
    ['destination NPI 19', { destination: { ton: null, npi: 19 } }, 'destination.npi must be an integer from 0 to 18'],
    ['enabled "yes"', { enabled: 'yes' as unknown as boolean }, 'enabled must be true or false'],
    ['an error code without 0x', { rerouteOnErrors: ['0000000B'] }, 'rerouteOnErrors[0] must be an SMPP command_status'],
    ['error code 0x00000000 (success)', { rerouteOnErrors: ['0x00000000'] }, 'rerouteOnErrors[0] must be'],
    ['rerouteOnErrors not a list', { rerouteOnErrors: '0x0000000B' as unknown as string[] }, 'rerouteOnErrors must be an array'],
  ])('refuses %s (400), nothing appended', (_name, change, message) => {
    const carrierId = 'carrierId' in change ? change.carrierId : 'a';
    const command = putCarrier(carrierId, 'carrierId' in change ? settings() : settings(change));
    expect(refused(initialRoutingConfigState(), command)).toEqual({ code: 'invalid', message: expect.stringContaining(message) });
  });

  it('accepts the edges of every range', () => {
    const edges = settings({ binds: 64, window: 1000, maxPerSecond: 100_000, systemType: 'abcdefghijkl', source: { ton: 6, npi: 18 }, destination: { ton: 0, npi: 0 } });
    expect(when(initialRoutingConfigState(), putCarrier('a'.repeat(40), edges))).toHaveLength(1);
    expect(when(initialRoutingConfigState(), putCarrier('0-x', settings({ binds: 1, window: 1, maxPerSecond: 1 })))).toHaveLength(1);
  });

  it('removes a carrier no route names', () => {
    expect(when(given(putCarrier('a')), { type: 'RemoveCarrier', carrierId: 'a' })).toEqual([{ type: 'CarrierRemoved', schemaVersion: 1, data: { carrierId: 'a', removedAt: T1 } }]);
  });

  it('refuses to remove a carrier a route names (409), and an unknown one (404)', () => {
    const state = given(putCarrier('a'), putCarrier('b'), putRoute('uk', route({ carriers: [{ carrierId: 'b', weight: 1 }, { carrierId: 'a', weight: 1 }] })), putRoute('de', route({ carriers: [{ carrierId: 'a', weight: 1 }] })));
    expect(refused(state, { type: 'RemoveCarrier', carrierId: 'a' })).toEqual({ code: 'conflict', message: 'carrier a is named by routes de, uk: change or remove them first' });
    expect(refused(state, { type: 'RemoveCarrier', carrierId: 'zz' })).toEqual({ code: 'unknown', message: 'no carrier zz' });
  });
});

describe('routes', () => {
  const withCarriers = () => given(putCarrier('a'), putCarrier('b'));

  it('configures a route over configured carriers', () => {
    const input = route({ mode: 'weighted', carriers: [{ carrierId: 'a', weight: 70 }, { carrierId: 'b', weight: 30 }], price: { amount: '0.0125', currency: 'EUR' } });
    expect(when(withCarriers(), putRoute('split', input))).toEqual([
      { type: 'RouteConfigured', schemaVersion: 1, data: { routeId: 'split', ...input, configuredAt: T1 } satisfies RouteConfiguredV1 },
    ]);
  });

  it('normalises countries to capitals and drops repeated match values', () => {
    const [event] = when(withCarriers(), putRoute('r', route({ match: { prefixes: ['44', '44'], countries: ['gb', 'GB', 'de'], accountIds: ['acme'], subAccountIds: [] } })));
    expect((event?.data as RouteConfiguredV1).match).toEqual({ prefixes: ['44'], countries: ['GB', 'DE'], accountIds: ['acme'], subAccountIds: [] });
  });

  it('appends nothing for a PUT equal to what is stored, and replaces on any change', () => {
    const state = given(putCarrier('a'), putRoute('r'));
    expect(when(state, putRoute('r'))).toEqual([]);
    expect(when(state, putRoute('r', route({ position: 11 })))).toHaveLength(1);
  });

  it("accepts a route naming `default` without a stored one: SMPP_URL's carrier lives in the environment", () => {
    expect(when(withCarriers(), putRoute('r', route({ carriers: [{ carrierId: 'default', weight: 1 }] })))).toHaveLength(1);
  });

  it('refuses a route naming a carrier that is not configured (409)', () => {
    expect(refused(withCarriers(), putRoute('r', route({ carriers: [{ carrierId: 'a', weight: 1 }, { carrierId: 'x', weight: 1 }, { carrierId: 'y', weight: 1 }] })))).toEqual({
      code: 'conflict',
      message: 'carriers x, y are not configured: create them first',
    });
  });

  it.each<[string, Partial<RouteInput> | { routeId: string }, string]>([
    ['an id with an underscore', { routeId: 'uk_mobile' }, 'routeId must be'],
    ['no carriers', { carriers: [] }, 'carriers must name at least one carrier'],
    ['a carrier twice', { carriers: [{ carrierId: 'a', weight: 1 }, { carrierId: 'a', weight: 2 }] }, 'carriers names a twice'],
    ['weight 0', { mode: 'weighted', carriers: [{ carrierId: 'a', weight: 0 }] }, 'carriers[0].weight must be an integer from 1'],
    ['weight 2.5', { mode: 'weighted', carriers: [{ carrierId: 'a', weight: 2.5 }] }, 'carriers[0].weight must be'],
    ['mode round-robin', { mode: 'round-robin' as RouteInput['mode'] }, 'mode must be failover or weighted'],
    ['position 1.5', { position: 1.5 }, 'position must be an integer from -1000000 to 1000000'],
    ['position 1000001', { position: 1_000_001 }, 'position must be'],
    ['a prefix with +', { match: { prefixes: ['+44'], countries: [], accountIds: [], subAccountIds: [] } }, 'match.prefixes[0] must be E.164 digits'],
    ['a prefix of 16 digits', { match: { prefixes: ['1'.repeat(16)], countries: [], accountIds: [], subAccountIds: [] } }, 'match.prefixes[0] must be'],
    ['an empty prefix', { match: { prefixes: [''], countries: [], accountIds: [], subAccountIds: [] } }, 'match.prefixes[0] must be'],
    ['country UK', { match: { prefixes: [], countries: ['UK'], accountIds: [], subAccountIds: [] } }, 'match.countries[0] must be an ISO 3166-1 alpha-2'],
    ['country GBR', { match: { prefixes: [], countries: ['GBR'], accountIds: [], subAccountIds: [] } }, 'match.countries[0] must be'],
    ['an account id with a space', { match: { prefixes: [], countries: [], accountIds: ['ac me'], subAccountIds: [] } }, 'match.accountIds[0] must be an account id'],
    ['match without its lists', { match: {} as RouteInput['match'] }, 'match.prefixes must be an array'],
    ['price amount 0,01', { price: { amount: '0,01', currency: 'EUR' } }, 'price.amount must be a decimal string'],
    ['price amount of 7 decimals', { price: { amount: '0.0000001', currency: 'EUR' } }, 'price.amount must be'],
    ['price currency eur', { price: { amount: '0.01', currency: 'eur' } }, 'price.currency must be an ISO 4217 code'],
  ])('refuses %s (400), nothing appended', (_name, change, message) => {
    const routeId = 'routeId' in change ? change.routeId : 'r';
    const command = putRoute(routeId, 'routeId' in change ? route() : route(change));
    expect(refused(withCarriers(), command)).toEqual({ code: 'invalid', message: expect.stringContaining(message) });
  });

  it('removes a route, and refuses an unknown one (404)', () => {
    const state = given(putCarrier('a'), putRoute('r'));
    expect(when(state, { type: 'RemoveRoute', routeId: 'r' })).toEqual([{ type: 'RouteRemoved', schemaVersion: 1, data: { routeId: 'r', removedAt: T1 } }]);
    expect(refused(state, { type: 'RemoveRoute', routeId: 'zz' })).toEqual({ code: 'unknown', message: 'no route zz' });
  });

  it('lets a carrier go once no route names it', () => {
    const state = given(putCarrier('a'), putRoute('r'), { type: 'RemoveRoute', routeId: 'r' });
    expect(when(state, { type: 'RemoveCarrier', carrierId: 'a' })).toHaveLength(1);
  });
});

describe('evolve and fold', () => {
  it('never changes a state it was given', () => {
    const before = given(putCarrier('a'));
    const after = evolveRoutingConfig(before, { type: 'CarrierRemoved', data: { carrierId: 'a', removedAt: T1 } });
    expect(before.carriers.has('a')).toBe(true);
    expect(after.carriers.has('a')).toBe(false);
  });

  it('folds a stream to the table it describes, in the order routes are tried', () => {
    const events = [
      ...decideRoutingConfig(putCarrier('b'), initialRoutingConfigState(), T0),
      ...decideRoutingConfig(putCarrier('a'), initialRoutingConfigState(), T0),
    ];
    const carriers = foldRoutingConfig(events);
    const routes = [putRoute('z', route({ position: 1 })), putRoute('y', route({ position: 1 })), putRoute('x', route({ position: 2 })), putRoute('w', route({ position: -5 }))].flatMap((c) =>
      decideRoutingConfig(c, carriers, T0),
    );
    const view = routingTableView(foldRoutingConfig([...events, ...routes, { type: 'Unrelated', data: {} }]));
    expect(view.carriers.map((c) => c.carrierId)).toEqual(['a', 'b']);
    expect(view.routes.map((r) => r.routeId)).toEqual(['w', 'y', 'z', 'x']);
    expect(view.carriers[0]).toMatchObject({ url: 'smpp://seed@smsc-a.example:2775' });
    expect(JSON.stringify(view)).not.toContain('sealed');
  });
});
