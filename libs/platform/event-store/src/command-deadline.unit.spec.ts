import { DEADLINE_SKEW_MARGIN_MS, pastCommandDeadline } from './command-deadline';

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
