import { ApiError } from '../http/api-error';
import { inboundListParameters } from './inbound-list.parameters';

const refused = (query: unknown) => {
  try {
    inboundListParameters(query);
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    return (error as ApiError).message;
  }
  throw new Error('expected a 400');
};

describe('the inbound list parameters', () => {
  it('defaults to the newest 100, and takes since, before and limit', () => {
    expect(inboundListParameters({})).toEqual({ since: null, before: null, limit: 100 });
    expect(inboundListParameters({ since: '2030-01-15T10:00:00+01:00', before: '12345', limit: '5' })).toEqual({ since: '2030-01-15T09:00:00.000Z', before: '12345', limit: 5 });
  });

  it('refuses unknown, repeated and malformed parameters', () => {
    expect(refused({ sinse: '2030-01-15T10:00:00Z' })).toMatch(/unknown query parameter "sinse"/);
    expect(refused({ limit: ['1', '2'] })).toMatch(/limit must be/);
    expect(refused({ since: 'yesterday' })).toMatch(/since must be/);
    expect(refused({ since: '0000-01-01T00:00:00Z' })).toMatch(/since must be/);
    expect(refused({ before: '9'.repeat(19) })).toMatch(/before must be/);
    expect(refused({ limit: '0' })).toMatch(/limit must be/);
    expect(refused({ limit: '1001' })).toMatch(/limit must be/);
  });
});
