import { optOutRequest } from './opt-out-requests';
import { UsageError } from './routing-requests';

describe('the admin CLI opt-out commands', () => {
  const base = '/admin/v1/accounts/acme/sub-accounts/acme_hq/opt-outs';

  it('opts a number out and back in, the + escaped', () => {
    expect(optOutRequest('opt-out', ['acme', 'acme_hq', '+447911123456'])).toEqual({ method: 'PUT', path: `${base}/%2B447911123456` });
    expect(optOutRequest('opt-in', ['acme', 'acme_hq', '447911123456'])).toEqual({ method: 'DELETE', path: `${base}/447911123456` });
  });

  it('lists, with the cursor and page size when given', () => {
    expect(optOutRequest('list-opt-outs', ['acme', 'acme_hq'])).toEqual({ method: 'GET', path: base });
    expect(optOutRequest('list-opt-outs', ['acme', 'acme_hq', '--after', '447911123456', '--limit', '10'])).toEqual({ method: 'GET', path: `${base}?after=447911123456&limit=10` });
  });

  it('escapes the ids', () => {
    expect(optOutRequest('list-opt-outs', ['a/b', 'c d'])?.path).toBe('/admin/v1/accounts/a%2Fb/sub-accounts/c%20d/opt-outs');
  });

  it('leaves other commands to the rest of the CLI', () => {
    expect(optOutRequest('list-carriers', [])).toBeNull();
  });

  it.each([
    ['opt-out', ['acme', 'acme_hq'], 'needs an account id, a sub-account id and an MSISDN'],
    ['opt-in', ['acme', 'acme_hq', '447911123456', 'extra'], 'needs an account id, a sub-account id and an MSISDN'],
    ['list-opt-outs', ['acme'], 'needs an account id and a sub-account id'],
    ['list-opt-outs', ['acme', 'acme_hq', '--limit'], '--limit needs a value'],
    ['list-opt-outs', ['acme', 'acme_hq', '--colour', 'red'], 'unknown option --colour'],
  ])('%s %j: usage error', (command, args, message) => {
    expect(() => optOutRequest(command, args)).toThrow(UsageError);
    expect(() => optOutRequest(command, args)).toThrow(message);
  });
});
