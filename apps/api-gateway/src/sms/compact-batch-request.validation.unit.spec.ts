import { ApiErrorCode } from '@seed/contracts';
import { ApiError } from '../http/api-error';
import { toSubmitBatchData } from './batch-request.validation';
import { toCompactBatchData } from './compact-batch-request.validation';

const NOW = new Date('2030-01-15T10:00:00.000Z');
const compact = (body: unknown) => toCompactBatchData(body, 'acme', 'acme_hq', NOW);

function refusal(body: unknown): { status: number; code: number; message: string } {
  try {
    compact(body);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return { status: error.status, code: error.code, message: error.message };
  }
  throw new Error('expected the request to be refused');
}

describe('toCompactBatchData', () => {
  it('is the `many` request with one message per destination', () => {
    const template = { text: 'Sale today', source: 'ACME', encoding: 'GSM7', expiry: '2030-01-16T10:00:00+01:00', dlrCallbackUrl: 'https://acme.example/dlr' };
    const body = { destinations: ['+447911123456', '447911123457'], template, clientBatchId: 'promo-1', includeMessagesInResponse: true };
    expect(compact(body)).toEqual(
      toSubmitBatchData({ template, clientBatchId: 'promo-1', includeMessagesInResponse: true, messages: [{ destination: '+447911123456' }, { destination: '447911123457' }] }, 'acme', 'acme_hq', NOW),
    );
  });

  it('passes a null destination on as a message without one (rejected alone, as in `many`)', () => {
    expect(compact({ destinations: [null, '+447911123456'], template: { text: 'Hi' } }).messages).toEqual([{ destination: '' }, { destination: '+447911123456' }]);
  });

  it('ignores a `messages` field: only `destinations` are sent to', () => {
    expect(compact({ destinations: ['+447911123456'], messages: [{ destination: '+15550000000' }], template: { text: 'Hi' } }).messages).toEqual([{ destination: '+447911123456' }]);
  });

  it.each([
    ['missing destinations', { template: { text: 'Hi' } }, ApiErrorCode.InvalidParameter],
    ['empty destinations', { destinations: [], template: { text: 'Hi' } }, ApiErrorCode.InvalidParameter],
    ['destinations not an array', { destinations: '+447911123456', template: { text: 'Hi' } }, ApiErrorCode.InvalidParameter],
    ['a destination of the wrong type', { destinations: ['+447911123456', 447911123457], template: { text: 'Hi' } }, ApiErrorCode.InvalidMsisdn],
    ['no template', { destinations: ['+447911123456'] }, ApiErrorCode.InvalidText],
    ['an empty template text', { destinations: ['+447911123456'], template: { text: '' } }, ApiErrorCode.InvalidText],
    ['a template text of the wrong type', { destinations: ['+447911123456'], template: { text: 42 } }, ApiErrorCode.InvalidText],
    ['a body that is not an object', ['+447911123456'], ApiErrorCode.InvalidParameter],
    ['a bad template field, as in `many`', { destinations: ['+447911123456'], template: { text: 'Hi', encoding: 'ASCII' } }, ApiErrorCode.InvalidEncoding],
  ])('refuses %s with 400', (_case, body, code) => {
    expect(refusal(body)).toMatchObject({ status: 400, code });
  });

  it('refuses more than 10,000 destinations with 1100 and accepts exactly 10,000', () => {
    const numbers = (n: number) => Array.from({ length: n }, (_, i) => `+4479110${String(i).padStart(5, '0')}`);
    expect(refusal({ destinations: numbers(10_001), template: { text: 'Hi' } })).toMatchObject({ status: 400, code: ApiErrorCode.BulkLimitReached });
    expect(compact({ destinations: numbers(10_000), template: { text: 'Hi' } }).messages).toHaveLength(10_000);
  });
});
