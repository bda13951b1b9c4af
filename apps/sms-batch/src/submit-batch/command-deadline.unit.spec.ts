import { DEADLINE_SKEW_MARGIN_MS, pastCommandDeadline } from './command-deadline';
import { IDEMPOTENCY_WINDOW_MS, IdempotencyKeyReused, matchIdempotencyKey } from './idempotency-keys';

describe('pastCommandDeadline', () => {
  const issued = Date.parse('2026-01-01T00:00:00.000Z');
  const at = (ms: number) => pastCommandDeadline(new Date(issued).toISOString(), 30_000, issued + ms);

  it('lets a command be committed until the gateway deadline less the skew margin', () => {
    expect(at(0)).toBe(false);
    expect(at(30_000 - DEADLINE_SKEW_MARGIN_MS)).toBe(false);
    expect(at(30_000 - DEADLINE_SKEW_MARGIN_MS + 1)).toBe(true);
    expect(at(30_000)).toBe(true);
  });

  it('decides a command whose issuer clock is ahead of this one', () => {
    expect(at(-5000)).toBe(false);
  });

  it('counts an unreadable issuedAt as late', () => {
    expect(pastCommandDeadline('yesterday-ish', 30_000)).toBe(true);
  });
});

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
