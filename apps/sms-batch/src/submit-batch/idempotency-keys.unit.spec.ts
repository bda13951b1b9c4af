import { IDEMPOTENCY_WINDOW_MS, IdempotencyKeyReused, matchIdempotencyKey } from './idempotency-keys';

describe('matchIdempotencyKey', () => {
  const now = new Date('2026-01-02T00:00:00.000Z');
  const known = { requestHash: 'h1', batchId: 'b1', createdAt: new Date(now.getTime() - 1000) };

  it('is a new request when the key is unknown or older than 24 h', () => {
    expect(matchIdempotencyKey(undefined, { key: 'k', requestHash: 'h1' }, now)).toBeNull();
    expect(matchIdempotencyKey({ ...known, createdAt: new Date(now.getTime() - IDEMPOTENCY_WINDOW_MS) }, { key: 'k', requestHash: 'h2' }, now)).toBeNull();
  });

  it('answers the same request with its first batch', () => {
    expect(matchIdempotencyKey(known, { key: 'k', requestHash: 'h1' }, now)).toEqual({ batchId: 'b1' });
  });

  it('refuses another request with the same key', () => {
    expect(() => matchIdempotencyKey(known, { key: 'k', requestHash: 'h2' }, now)).toThrow(IdempotencyKeyReused);
  });
});
