import { routingRequest, UsageError } from './routing-requests';

describe('the admin CLI carrier and route commands', () => {
  it('puts a carrier with its options', () => {
    expect(routingRequest('put-carrier', ['carrier-a', 'smpp://seed:pw@127.0.0.1:2775', '--binds', '4', '--window', '50', '--max-per-second', '200', '--disabled'])).toEqual({
      method: 'PUT',
      path: '/admin/v1/carriers/carrier-a',
      body: { url: 'smpp://seed:pw@127.0.0.1:2775', binds: 4, window: 50, maxPerSecond: 200, enabled: false },
    });
    expect(routingRequest('put-carrier', ['b', 'smpps://x:y@h', '--reroute-on-errors', '0x0000000B,0x00000045'])?.body).toEqual({ url: 'smpps://x:y@h', rerouteOnErrors: ['0x0000000B', '0x00000045'] });
  });

  it('puts a route: weights imply a weighted split, every match list and the price', () => {
    expect(
      routingRequest('put-route', ['uk', '--carriers', 'a,b', '--weights', '70,30', '--position', '-5', '--prefixes', '44,49', '--countries', 'GB,DE', '--accounts', 'acme', '--sub-accounts', 'acme_hq', '--price', '0.01:EUR']),
    ).toEqual({
      method: 'PUT',
      path: '/admin/v1/routes/uk',
      body: {
        carriers: [
          { carrierId: 'a', weight: 70 },
          { carrierId: 'b', weight: 30 },
        ],
        match: { prefixes: ['44', '49'], countries: ['GB', 'DE'], accountIds: ['acme'], subAccountIds: ['acme_hq'] },
        mode: 'weighted',
        position: -5,
        price: { amount: '0.01', currency: 'EUR' },
      },
    });
    expect(routingRequest('put-route', ['all', '--carriers', 'a,b'])?.body).toEqual({
      carriers: [{ carrierId: 'a' }, { carrierId: 'b' }],
      match: { prefixes: [], countries: [], accountIds: [], subAccountIds: [] },
      mode: 'failover',
    });
  });

  it('lists and removes', () => {
    expect(routingRequest('list-carriers', [])).toEqual({ method: 'GET', path: '/admin/v1/carriers' });
    expect(routingRequest('list-routes', [])).toEqual({ method: 'GET', path: '/admin/v1/routes' });
    expect(routingRequest('remove-carrier', ['a'])).toEqual({ method: 'DELETE', path: '/admin/v1/carriers/a' });
    expect(routingRequest('remove-route', ['r/x'])).toEqual({ method: 'DELETE', path: '/admin/v1/routes/r%2Fx' });
  });

  it('leaves other commands to the account dashboard', () => {
    expect(routingRequest('create-account', ['acme'])).toBeNull();
  });

  it.each([
    ['put-carrier', ['a'], 'needs a carrier id and an smpp:// URL'],
    ['put-carrier', ['a', 'smpp://x:y@h', '--binds'], '--binds needs a value'],
    ['put-carrier', ['a', 'smpp://x:y@h', '--binds', 'four'], '--binds needs a whole number'],
    ['put-carrier', ['a', 'smpp://x:y@h', '--colour', 'red'], 'unknown option --colour'],
    ['put-route', ['r'], 'needs --carriers'],
    ['put-route', ['r', '--carriers', 'a,b', '--weights', '70'], 'one weight per carrier (2)'],
    ['put-route', ['r', '--carriers', 'a', '--price', '0.01'], '--price is <amount>:<currency>'],
    ['remove-route', [], 'needs a route id'],
  ])('%s %j: usage error', (command, args, message) => {
    expect(() => routingRequest(command, args)).toThrow(UsageError);
    expect(() => routingRequest(command, args)).toThrow(message);
  });
});
