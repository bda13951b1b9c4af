import { ApiError } from '../http/api-error';
import { listParameters, pathMsisdn } from './opt-out-request.validation';

const refusal = (work: () => unknown) => {
  try {
    work();
  } catch (error) {
    if (error instanceof ApiError) return { status: error.status, code: error.code, message: error.message };
    throw error;
  }
  throw new Error('not refused');
};

describe('the MSISDN of an opt-out path', () => {
  it.each(['+447911123456', '447911123456', '00447911123456'])('reads %s as the stored form 447911123456', (given) => {
    expect(pathMsisdn(given)).toBe('447911123456');
  });

  it('reads other countries by their calling code', () => {
    expect(pathMsisdn('+4915112345678')).toBe('4915112345678');
    expect(pathMsisdn('0012025550123')).toBe('12025550123');
  });

  it.each<[string, string]>([
    ['a national number', '07911123456'],
    ['too few digits', '+4479'],
    ['a number outside the numbering plan', '+447700900123'],
    ['separators', '+44 7911 123456'],
    ['letters', '+44791112345a'],
    ['16 digits', '+4479111234567890'],
    ['a NUL byte', '447911123456\u0000'],
    ['nothing', ''],
  ])('refuses %s with 400, code 1000', (_name, given) => {
    expect(refusal(() => pathMsisdn(given))).toEqual({ status: 400, code: 1000, message: expect.stringContaining('must be a valid international number') });
  });
});

describe('the query of the opt-out list', () => {
  it('defaults to the first 100', () => {
    expect(listParameters({})).toEqual({ after: null, limit: 100 });
    expect(listParameters(undefined)).toEqual({ after: null, limit: 100 });
  });

  it('passes the cursor and limit on', () => {
    expect(listParameters({ after: '447911123456', limit: '1' })).toEqual({ after: '447911123456', limit: 1 });
    expect(listParameters({ limit: '1000' })).toEqual({ after: null, limit: 1000 });
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['limit 0', { limit: '0' }, 'limit must be an integer from 1 to 1000'],
    ['limit 1001', { limit: '1001' }, 'limit must be an integer from 1 to 1000'],
    ['limit 1.5', { limit: '1.5' }, 'limit must be an integer from 1 to 1000'],
    ['limit -1', { limit: '-1' }, 'limit must be an integer from 1 to 1000'],
    ['limit empty', { limit: '' }, 'limit must be an integer from 1 to 1000'],
    ['limit given twice', { limit: ['1', '2'] }, 'given once'],
    ['after with +', { after: '+447911123456' }, 'after must be an MSISDN of 1-15 digits'],
    ['after empty', { after: '' }, 'after must be an MSISDN of 1-15 digits'],
    ['after of 16 digits', { after: '1234567890123456' }, 'after must be an MSISDN of 1-15 digits'],
  ])('refuses %s with 400, code 1000', (_name, query, message) => {
    expect(refusal(() => listParameters(query))).toEqual({ status: 400, code: 1000, message: expect.stringContaining(message) });
  });
});
