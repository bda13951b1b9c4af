import { numberRequest } from './number-requests';
import { UsageError } from './routing-requests';

describe('the admin CLI number commands', () => {
  it('puts a number with its options, the + escaped in the path', () => {
    expect(numberRequest('put-number', ['+447700900123', 'acme', 'acme_hq', '--webhook', 'https://hooks.acme.example/in', '--help-text', 'Acme: reply STOP to opt out'])).toEqual({
      method: 'PUT',
      path: '/admin/v1/numbers/%2B447700900123',
      body: { accountId: 'acme', subAccountId: 'acme_hq', inboundWebhookUrl: 'https://hooks.acme.example/in', helpText: 'Acme: reply STOP to opt out' },
    });
    expect(numberRequest('put-number', ['60777', 'acme', 'acme_eu'])).toEqual({ method: 'PUT', path: '/admin/v1/numbers/60777', body: { accountId: 'acme', subAccountId: 'acme_eu' } });
    expect(numberRequest('put-number', ['60777', 'acme', 'acme_eu', '--carriers', 'carrier-a, carrier-b'])).toMatchObject({ body: { carriers: ['carrier-a', 'carrier-b'] } });
  });

  it('lists every number or one sub-account, and removes', () => {
    expect(numberRequest('list-numbers', [])).toEqual({ method: 'GET', path: '/admin/v1/numbers' });
    expect(numberRequest('list-numbers', ['acme_hq'])).toEqual({ method: 'GET', path: '/admin/v1/numbers?subAccountId=acme_hq' });
    expect(numberRequest('remove-number', ['+447700900123'])).toEqual({ method: 'DELETE', path: '/admin/v1/numbers/%2B447700900123' });
  });

  it('leaves other commands alone', () => {
    expect(numberRequest('put-carrier', ['a'])).toBeNull();
    expect(numberRequest(undefined, [])).toBeNull();
  });

  it.each<[string, string, string[]]>([
    ['put-number without a sub-account', 'put-number', ['447700900123', 'acme']],
    ['put-number with an option for an id', 'put-number', ['447700900123', 'acme', '--webhook', 'https://x.example']],
    ['an unknown option', 'put-number', ['447700900123', 'acme', 'acme_hq', '--keyword', 'HELP']],
    ['an option without its value', 'put-number', ['447700900123', 'acme', 'acme_hq', '--help-text']],
    ['list-numbers with two ids', 'list-numbers', ['acme_hq', 'acme_eu']],
    ['remove-number without a number', 'remove-number', []],
  ])('refuses %s as a usage error', (_name, command, args) => {
    expect(() => numberRequest(command, args)).toThrow(UsageError);
  });
});
