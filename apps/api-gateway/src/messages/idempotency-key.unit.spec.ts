import { ApiError } from '../http/api-error';
import { canonicalJson, idempotencyOf } from './idempotency-key';

describe('canonicalJson', () => {
  it('gives the same text for the same value whatever the order of its keys', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: 'x' } })).toBe(canonicalJson({ a: { c: 'x', d: [1, { x: 1, y: 2 }] }, b: 1 }));
    expect(canonicalJson({ b: 1, a: 2 })).toBe('{"a":2,"b":1}');
  });

  it('keeps the order of arrays and tells values apart', () => {
    expect(canonicalJson([1, 2])).not.toBe(canonicalJson([2, 1]));
    expect(canonicalJson({ a: '1' })).not.toBe(canonicalJson({ a: 1 }));
    expect(canonicalJson({ a: null })).not.toBe(canonicalJson({}));
  });
});

describe('idempotencyOf', () => {
  const body = { destination: '+447911123456', text: 'Hi' };

  it('is undefined without the header', () => {
    expect(idempotencyOf(undefined, 'sendMessage', 'acme_hq', body)).toBeUndefined();
  });

  it('hashes the same request to the same value, and another body, sub-account or operation to another', () => {
    const first = idempotencyOf('k-1', 'sendMessage', 'acme_hq', body);
    expect(first).toEqual({ key: 'k-1', requestHash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(idempotencyOf('k-1', 'sendMessage', 'acme_hq', { text: 'Hi', destination: '+447911123456' })).toEqual(first);
    expect(idempotencyOf('k-1', 'sendMessage', 'acme_hq', { ...body, text: 'Ho' })?.requestHash).not.toBe(first?.requestHash);
    expect(idempotencyOf('k-1', 'sendMessage', 'acme_eu', body)?.requestHash).not.toBe(first?.requestHash);
    expect(idempotencyOf('k-1', 'sendMessageBatch', 'acme_hq', body)?.requestHash).not.toBe(first?.requestHash);
  });

  it.each([[''], ['a b'], ['x'.repeat(256)], ['ключ']])('refuses the malformed key %j with 400, code 1000', (key) => {
    expect(() => idempotencyOf(key, 'sendMessage', 'acme_hq', body)).toThrow(ApiError);
    try {
      idempotencyOf(key, 'sendMessage', 'acme_hq', body);
    } catch (error) {
      expect(error).toMatchObject({ status: 400, code: 1000 });
    }
  });

  it('accepts a UUID and other visible ASCII keys up to 255 characters', () => {
    expect(idempotencyOf('0193a5b2-1c2d-7e3f-8a9b-0c1d2e3f4a5b', 'sendMessage', 'acme_hq', body)?.key).toBe('0193a5b2-1c2d-7e3f-8a9b-0c1d2e3f4a5b');
    expect(idempotencyOf('k'.repeat(255), 'sendMessage', 'acme_hq', body)?.key).toHaveLength(255);
  });
});
