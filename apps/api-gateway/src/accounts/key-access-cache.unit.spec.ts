import { KeyAccessCache } from './key-access-cache';

const KEY = Buffer.from('a'.repeat(64), 'hex');
const OTHER_KEY = Buffer.from('b'.repeat(64), 'hex');
const ACCESS = { accountId: 'acme', ownsSubAccount: true, requestsPerSecond: null };

function cache(ttlMs = 1000, maxEntries = 10) {
  let now = 0;
  const c = new KeyAccessCache({ ttlMs, maxEntries, now: () => now });
  c.enable();
  return { c, advance: (ms: number) => (now += ms) };
}

it('answers an admission it was given, per key and sub-account, until its time is up', () => {
  const { c, advance } = cache(1000);
  c.fill(KEY, 'acme_hq', ACCESS, c.generation);
  expect(c.get(KEY, 'acme_hq')).toEqual(ACCESS);
  expect(c.get(KEY, 'acme_eu')).toBeUndefined();
  expect(c.get(OTHER_KEY, 'acme_hq')).toBeUndefined();
  advance(999);
  expect(c.get(KEY, 'acme_hq')).toEqual(ACCESS);
  advance(1);
  expect(c.get(KEY, 'acme_hq')).toBeUndefined();
});

it('does not keep a lookup that began before a clear (its answer may predate the change)', () => {
  const { c } = cache();
  const began = c.generation;
  c.clear();
  c.fill(KEY, 'acme_hq', ACCESS, began);
  expect(c.get(KEY, 'acme_hq')).toBeUndefined();
  c.fill(KEY, 'acme_hq', ACCESS, c.generation);
  expect(c.get(KEY, 'acme_hq')).toEqual(ACCESS);
});

it('is used only while enabled, and starts empty each time it is enabled', () => {
  const { c } = cache();
  c.fill(KEY, 'acme_hq', ACCESS, c.generation);
  c.disable();
  expect(c.get(KEY, 'acme_hq')).toBeUndefined();
  c.fill(KEY, 'acme_hq', ACCESS, c.generation);
  c.enable();
  expect(c.get(KEY, 'acme_hq')).toBeUndefined();
});

it('keeps nothing with a time of 0', () => {
  const { c } = cache(0);
  c.fill(KEY, 'acme_hq', ACCESS, c.generation);
  expect(c.get(KEY, 'acme_hq')).toBeUndefined();
});

it('drops the least recently filled entries past its size', () => {
  const { c } = cache(1000, 2);
  c.fill(KEY, 'one', ACCESS, c.generation);
  c.fill(KEY, 'two', ACCESS, c.generation);
  c.fill(KEY, 'one', ACCESS, c.generation);
  c.fill(KEY, 'three', ACCESS, c.generation);
  expect(c.get(KEY, 'two')).toBeUndefined();
  expect(c.get(KEY, 'one')).toEqual(ACCESS);
  expect(c.get(KEY, 'three')).toEqual(ACCESS);
});
