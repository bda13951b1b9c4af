import { handoffGate } from './handoff-gate';

const NOW = '2030-01-15T10:00:00.000Z';
const message = { expiry: null, subAccountId: 'acme_hq', destination: '447911123456' };

describe('handoffGate', () => {
  it('ends an expired message before asking about opt-outs, and holds back one whose recipient is not known', () => {
    expect(handoffGate({ ...message, expiry: NOW }, NOW, () => 'unknown')).toBe('expired');
    expect(handoffGate(message, NOW, () => 'unknown')).toBe('opt-outs-unknown');
    expect(handoffGate(message, NOW, () => true)).toBe('opted-out');
    expect(handoffGate({ ...message, expiry: '2030-01-15T10:00:01.000Z' }, NOW, () => false)).toBe('open');
  });
});
