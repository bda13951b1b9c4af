import { decideNumbers, evolveNumbers, initialNumbersState, NumbersError, type NumbersCommand, type NumbersState } from './numbers.decider';

const NOW = '2030-01-15T10:00:00.000Z';
const assignment = { accountId: 'acme', subAccountId: 'acme_hq', inboundWebhookUrl: 'https://hooks.example.com/inbound', helpText: 'ACME alerts. Reply STOP to end.' };
const put: NumbersCommand = { type: 'PutNumber', number: '447700100100', assignment };
const apply = (state: NumbersState, command: NumbersCommand) => decideNumbers(command, state, NOW).reduce(evolveNumbers, state);

describe('the numbers decider', () => {
  it('assigns a number to a sub-account, and appends nothing for the same assignment again', () => {
    const state = apply(initialNumbersState(), put);
    expect(state.numbers.get('447700100100')).toEqual({ number: '447700100100', ...assignment, assignedAt: NOW });
    expect(decideNumbers(put, state, NOW)).toEqual([]);
  });

  it('moves a number to another sub-account, and releases it', () => {
    const moved = apply(apply(initialNumbersState(), put), { ...put, assignment: { ...assignment, subAccountId: 'acme_eu', helpText: null } });
    expect(moved.numbers.get('447700100100')).toMatchObject({ subAccountId: 'acme_eu', helpText: null });
    const released = apply(moved, { type: 'RemoveNumber', number: '447700100100' });
    expect(released.numbers.size).toBe(0);
  });

  it('refuses a number that is not digits, and the release of one it does not have', () => {
    expect(() => decideNumbers({ ...put, number: '+447700100100' }, initialNumbersState(), NOW)).toThrow(NumbersError);
    expect(() => decideNumbers({ type: 'RemoveNumber', number: '12345' }, initialNumbersState(), NOW)).toThrow(/no number 12345/);
  });

  it('keeps a carrier list sorted and once each, appends nothing for the same list again, and refuses an empty or malformed one', () => {
    const bound = apply(initialNumbersState(), { ...put, assignment: { ...assignment, carriers: ['carrier-b', 'carrier-a', 'carrier-b'] } });
    expect(bound.numbers.get('447700100100')?.carriers).toEqual(['carrier-a', 'carrier-b']);
    expect(decideNumbers({ ...put, assignment: { ...assignment, carriers: ['carrier-a', 'carrier-b'] } }, bound, NOW)).toEqual([]);
    // Back to the routes' carriers: a new assignment without a list.
    const unbound = apply(bound, { ...put, assignment: { ...assignment, carriers: null } });
    expect(unbound.numbers.get('447700100100')).not.toHaveProperty('carriers');
    expect(() => decideNumbers({ ...put, assignment: { ...assignment, carriers: [] } }, initialNumbersState(), NOW)).toThrow(/carriers must be a non-empty list/);
    expect(() => decideNumbers({ ...put, assignment: { ...assignment, carriers: ['Carrier A'] } }, initialNumbersState(), NOW)).toThrow(NumbersError);
  });
});
