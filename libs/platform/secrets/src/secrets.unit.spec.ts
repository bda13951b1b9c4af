import { randomBytes } from 'node:crypto';
import { digestsEqual, keyedHash, openSealedText, parseKeyring, sealText, SealedTextError, KeyringError } from './index';

const key = () => randomBytes(32).toString('base64');

describe('keyring', () => {
  it('takes the first key as current and keeps the others for opening', () => {
    const ring = parseKeyring(`k2:${key()}, k1:${key()}`);
    expect(ring.current.id).toBe('k2');
    expect(ring.ids).toEqual(['k2', 'k1']);
    expect(ring.byId('k1')).toHaveLength(32);
  });

  it.each([
    ['', 'at least one key'],
    ['nokey', 'kid:base64key'],
    [`k1:${Buffer.alloc(8).toString('base64')}`, 'at least 32 bytes'],
    [`bad id:${key()}`, 'key id'],
    [`k1:${key()},k1:${key()}`, 'unique'],
  ])('refuses %j', (spec, message) => {
    expect(() => parseKeyring(spec)).toThrow(KeyringError);
    expect(() => parseKeyring(spec)).toThrow(message);
  });
});

describe('sealed text', () => {
  it('round-trips, and the sealed form shows nothing of the text', () => {
    const ring = parseKeyring(`k1:${key()}`);
    const sealed = sealText(ring, 'Your verification code is 482913');
    expect(sealed).not.toContain('482913');
    expect(sealed.startsWith('sealed.v1.k1.')).toBe(true);
    expect(openSealedText(ring, sealed)).toBe('Your verification code is 482913');
  });

  it('opens texts sealed before a rotation with the retired key', () => {
    const old = `k1:${key()}`;
    const sealed = sealText(parseKeyring(old), 'ünïcödé ✓');
    expect(openSealedText(parseKeyring(`k2:${key()},${old}`), sealed)).toBe('ünïcödé ✓');
  });

  it('refuses a tampered text, an unknown key and a plain string', () => {
    const ring = parseKeyring(`k1:${key()}`);
    const sealed = sealText(ring, 'hello');
    // The second-to-last character (all six of its bits are data) replaced by a different one: the
    // choice looks at that character itself, or about one run in 64 would "flip" an A into an A.
    const flipped = sealed.slice(0, -2) + (sealed.at(-2) === 'A' ? 'B' : 'A') + sealed.slice(-1);
    expect(flipped).not.toBe(sealed);
    expect(() => openSealedText(ring, flipped)).toThrow(SealedTextError);
    expect(() => openSealedText(parseKeyring(`k9:${key()}`), sealed)).toThrow('unknown key');
    expect(() => openSealedText(ring, 'hello')).toThrow('not a sealed text');
  });
});

describe('keyed hash', () => {
  it('depends on the key and on how the parts are split', () => {
    const k = randomBytes(32);
    expect(keyedHash(k, 'uid', '1234')).toBe(keyedHash(k, 'uid', '1234'));
    expect(keyedHash(k, 'uid', '1234')).not.toBe(keyedHash(randomBytes(32), 'uid', '1234'));
    expect(keyedHash(k, 'uid1', '234')).not.toBe(keyedHash(k, 'uid', '1234'));
  });

  it('compares digests in constant time and refuses different lengths', () => {
    const k = randomBytes(32);
    expect(digestsEqual(keyedHash(k, 'a'), keyedHash(k, 'a'))).toBe(true);
    expect(digestsEqual(keyedHash(k, 'a'), keyedHash(k, 'b'))).toBe(false);
    expect(digestsEqual(keyedHash(k, 'a'), 'abcd')).toBe(false);
  });
});
