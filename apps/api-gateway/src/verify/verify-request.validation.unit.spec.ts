import { ApiError } from '../http/api-error';
import { codeParameter, toStartVerificationData } from './verify-request.validation';

const parse = (body: unknown) => toStartVerificationData(body, 'acme', 'acme_hq');
const refusal = (body: unknown) => {
  try {
    parse(body);
  } catch (error) {
    if (error instanceof ApiError) return { status: error.status, code: error.code };
    throw error;
  }
  throw new Error('accepted');
};

describe('verification generation request', () => {
  it('normalises international and national numbers', () => {
    expect(parse({ destination: '+44 7911 123456' })).toEqual({ accountId: 'acme', subAccountId: 'acme_hq', msisdn: '447911123456' });
    expect(parse({ destination: '07911 123456', country: 'GB' }).msisdn).toBe('447911123456');
    expect(parse({ destination: '0049 151 12345678' }).msisdn).toBe('4915112345678');
  });

  it('passes the options on, null counting as absent, unknown fields ignored', () => {
    expect(
      parse({ destination: '447911123456', brand: 'ACME', template: '{brand}: {code}', codeLength: 4, codeValidity: 30, resendingInterval: 10, resetSession: true, extra: 1, country: null }),
    ).toEqual({
      accountId: 'acme',
      subAccountId: 'acme_hq',
      msisdn: '447911123456',
      brand: 'ACME',
      template: '{brand}: {code}',
      codeLength: 4,
      codeValidity: 30,
      resendingInterval: 10,
      resetSession: true,
    });
  });

  it('accepts a template whose text with brand and code filled in is exactly 670 characters', () => {
    // 21 brands of 30 and a code of 10: 630 + 1 + 10 + 29 = 670.
    const template = `${'{brand}'.repeat(21)} {code}${'x'.repeat(29)}`;
    expect(parse({ destination: '447911123456', brand: 'B'.repeat(30), codeLength: 10, template }).template).toBe(template);
  });

  it.each([
    ['no body', null, 1000],
    ['missing destination', {}, 1002],
    ['empty destination', { destination: '' }, 1002],
    ['destination not a string', { destination: 447911123456 }, 1002],
    ['national number without country', { destination: '07911123456' }, 1002],
    ['letters', { destination: '+44 7911 CALLME' }, 1002],
    ['unknown country', { destination: '07911123456', country: 'XX' }, 1009],
    ['lower-case country', { destination: '07911123456', country: 'gb' }, 1009],
    ['brand not a string', { destination: '447911123456', brand: 5 }, 1000],
    ['brand too long', { destination: '447911123456', brand: 'x'.repeat(31) }, 1010],
    ['template without {code}', { destination: '447911123456', template: 'Hello' }, 1007],
    ['template not a string', { destination: '447911123456', template: ['{code}'] }, 1007],
    ['template with {brand} and no brand', { destination: '447911123456', template: '{brand} {code}' }, 1007],
    [
      'template whose text with brand and code filled in is over 670 characters',
      { destination: '447911123456', brand: 'B'.repeat(30), template: `${'{brand}'.repeat(23)} {code}` },
      1007,
    ],
    ['codeLength 3', { destination: '447911123456', codeLength: 3 }, 1010],
    ['codeLength 11', { destination: '447911123456', codeLength: 11 }, 1010],
    ['codeLength 6.5', { destination: '447911123456', codeLength: 6.5 }, 1000],
    ['codeLength "6"', { destination: '447911123456', codeLength: '6' }, 1000],
    ['codeValidity 29', { destination: '447911123456', codeValidity: 29 }, 1010],
    ['codeValidity 7201', { destination: '447911123456', codeValidity: 7201 }, 1010],
    ['resendingInterval 9', { destination: '447911123456', resendingInterval: 9 }, 1010],
    ['resendingInterval 7201', { destination: '447911123456', resendingInterval: 7201 }, 1010],
    ['resetSession "yes"', { destination: '447911123456', resetSession: 'yes' }, 1000],
  ])('%s (%j): 400 with code %i', (_name, body, code) => {
    expect(refusal(body)).toEqual({ status: 400, code: code as number });
  });
});

describe('the code query parameter', () => {
  it('is absent, or 4 to 10 digits given once', () => {
    expect(codeParameter({})).toBeUndefined();
    expect(codeParameter({ code: '0123' })).toBe('0123');
    expect(codeParameter({ code: '0123456789' })).toBe('0123456789');
    for (const code of ['', '123', '12345678901', '12a456', ' 123456', ['123456', '123456'], { a: '1' }]) {
      expect(() => codeParameter({ code })).toThrow(expect.objectContaining({ status: 400, code: 1000 }));
    }
  });
});
