/**
 * mulberry32: a small seeded PRNG for tests that draw their cases (fuzzing, weighted choices), so
 * that a seed gives the same draws on every run and a failure can be replayed from its seed.
 * Values in [0, 1), as Math.random.
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
