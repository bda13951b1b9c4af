import { fairShare } from './bind-share';

describe('fairShare', () => {
  it.each([
    [4, 3],
    [1, 2],
    [7, 4],
    [2, 5],
    [32, 9],
  ])('splits %i binds over %i replicas: every bind given once, no replica more than one above another', (binds, replicas) => {
    for (const carrier of ['default', 'carrier-a', 'b']) {
      const shares = Array.from({ length: replicas }, (_, rank) => fairShare(binds, replicas, rank, carrier));
      expect(shares.reduce((a, b) => a + b, 0)).toBe(binds);
      expect(Math.max(...shares) - Math.min(...shares)).toBeLessThanOrEqual(1);
    }
  });

  it("spreads the carriers' remainders over different replicas, not all to the first", () => {
    const firsts = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'].map((carrier) => [0, 1, 2].find((rank) => fairShare(1, 3, rank, carrier) === 1));
    expect(new Set(firsts).size).toBeGreaterThan(1);
  });

  it('gives a lone replica every bind', () => {
    expect(fairShare(5, 1, 0, 'a')).toBe(5);
    expect(fairShare(5, 0, 0, 'a')).toBe(5);
  });
});
