/*
 * The admin CLI's carrier and route commands, turned into admin API requests. Pure: the CLI sends
 * what this returns, and the unit spec checks the translation. Values are passed on as given
 * (numbers as numbers); the API checks them and answers what is wrong.
 */

export interface AdminRequest {
  method: 'GET' | 'PUT' | 'DELETE';
  path: string;
  body?: Record<string, unknown>;
}

export const ROUTING_USAGE = `  put-carrier <carrierId> <smpp-url> [--binds N] [--window N] [--max-per-second N] [--disabled] [--reroute-on-errors 0x0000000B,...]
                                              create or replace a carrier (smpp://system_id:password@host:port, smpps:// for TLS)
  list-carriers                               every carrier (passwords are never shown)
  remove-carrier <carrierId>                  only once no route names it
  put-route <routeId> --carriers a,b [--mode failover|weighted] [--weights 70,30] [--position N]
            [--prefixes 44,49] [--countries GB,DE] [--accounts x,y] [--sub-accounts x_hq] [--price 0.01:EUR]
                                              create or replace a route (the first route that matches a message wins)
  list-routes                                 the routing table, in the order routes are tried
  remove-route <routeId>`;

export class UsageError extends Error {}

const CARRIER_OPTIONS = { '--binds': 'number', '--window': 'number', '--max-per-second': 'number', '--disabled': 'flag', '--reroute-on-errors': 'list' } as const;
const ROUTE_OPTIONS = {
  '--carriers': 'list',
  '--mode': 'text',
  '--weights': 'list',
  '--position': 'number',
  '--prefixes': 'list',
  '--countries': 'list',
  '--accounts': 'list',
  '--sub-accounts': 'list',
  '--price': 'text',
} as const;
type OptionKind = 'number' | 'flag' | 'list' | 'text';
type Options = Record<string, number | boolean | string[] | string>;

/** The request for a routing command, or null when `command` is not one of them. */
export function routingRequest(command: string | undefined, args: readonly string[]): AdminRequest | null {
  const [id, ...rest] = args;
  switch (command) {
    case 'list-carriers':
      return { method: 'GET', path: '/admin/v1/carriers' };
    case 'list-routes':
      return { method: 'GET', path: '/admin/v1/routes' };
    case 'remove-carrier':
      return { method: 'DELETE', path: `/admin/v1/carriers/${required(id, 'a carrier id')}` };
    case 'remove-route':
      return { method: 'DELETE', path: `/admin/v1/routes/${required(id, 'a route id')}` };
    case 'put-carrier': {
      const [url, ...flags] = rest;
      if (url === undefined || url.startsWith('--')) throw new UsageError('put-carrier needs a carrier id and an smpp:// URL');
      const o = parseOptions(flags, CARRIER_OPTIONS);
      const body: Record<string, unknown> = { url };
      if (o['--binds'] !== undefined) body['binds'] = o['--binds'];
      if (o['--window'] !== undefined) body['window'] = o['--window'];
      if (o['--max-per-second'] !== undefined) body['maxPerSecond'] = o['--max-per-second'];
      if (o['--disabled'] === true) body['enabled'] = false;
      if (o['--reroute-on-errors'] !== undefined) body['rerouteOnErrors'] = o['--reroute-on-errors'];
      return { method: 'PUT', path: `/admin/v1/carriers/${required(id, 'a carrier id')}`, body };
    }
    case 'put-route':
      return { method: 'PUT', path: `/admin/v1/routes/${required(id, 'a route id')}`, body: routeBody(parseOptions(rest, ROUTE_OPTIONS)) };
    default:
      return null;
  }
}

function routeBody(o: Options): Record<string, unknown> {
  const carriers = o['--carriers'] as string[] | undefined;
  if (!carriers || carriers.length === 0) throw new UsageError('put-route needs --carriers a,b');
  const weights = o['--weights'] as string[] | undefined;
  if (weights && weights.length !== carriers.length) throw new UsageError(`--weights must give one weight per carrier (${carriers.length})`);
  const body: Record<string, unknown> = {
    carriers: carriers.map((carrierId, i) => (weights ? { carrierId, weight: numberOf(weights[i] as string, '--weights') } : { carrierId })),
    match: {
      prefixes: o['--prefixes'] ?? [],
      countries: o['--countries'] ?? [],
      accountIds: o['--accounts'] ?? [],
      subAccountIds: o['--sub-accounts'] ?? [],
    },
  };
  // Weights given without a mode mean a split: nobody lists weights for a failover order.
  body['mode'] = o['--mode'] ?? (weights ? 'weighted' : 'failover');
  if (o['--position'] !== undefined) body['position'] = o['--position'];
  if (o['--price'] !== undefined) {
    const [amount, currency, ...extra] = (o['--price'] as string).split(':');
    if (!amount || !currency || extra.length > 0) throw new UsageError('--price is <amount>:<currency>, such as 0.0125:EUR');
    body['price'] = { amount, currency };
  }
  return body;
}

function parseOptions(args: readonly string[], known: Record<string, OptionKind>): Options {
  const options: Options = {};
  for (let i = 0; i < args.length; i++) {
    const name = args[i] as string;
    const kind = known[name];
    if (kind === undefined) throw new UsageError(`unknown option ${name}`);
    if (kind === 'flag') {
      options[name] = true;
      continue;
    }
    const value = args[++i];
    if (value === undefined) throw new UsageError(`${name} needs a value`);
    options[name] = kind === 'number' ? numberOf(value, name) : kind === 'list' ? value.split(',').map((v) => v.trim()).filter((v) => v !== '') : value;
  }
  return options;
}

function numberOf(value: string, name: string): number {
  if (!/^-?\d+$/.test(value)) throw new UsageError(`${name} needs a whole number, not ${JSON.stringify(value)}`);
  return Number(value);
}

function required(id: string | undefined, what: string): string {
  if (id === undefined || id.startsWith('--')) throw new UsageError(`the command needs ${what}`);
  return encodeURIComponent(id);
}
