import { decideOptOut, evolveOptOut, NO_OPT_OUT, type OptOutChange, type OptOutState } from './opt-out.decider';

const AT = '2030-01-15T10:00:00.000Z';
const target = { accountId: 'acme', subAccountId: 'acme_hq', msisdn: '447700900123' };
const stop: OptOutChange = { type: 'OptOut', ...target, source: 'keyword', keyword: 'Stop', at: AT };
const start: OptOutChange = { type: 'OptIn', ...target, source: 'admin', keyword: null, at: '2030-01-15T11:00:00.000Z' };
const after = (state: OptOutState, change: OptOutChange) => decideOptOut(change, state).reduce(evolveOptOut, state);

describe('the opt-out decider', () => {
  it('opts a recipient out with how and when, and back in', () => {
    expect(decideOptOut(stop, NO_OPT_OUT)).toEqual([
      { type: 'RecipientOptedOut', schemaVersion: 1, data: { ...target, source: 'keyword', keyword: 'Stop', optedOutAt: AT } },
    ]);
    const out = after(NO_OPT_OUT, stop);
    expect(out.optedOut).toEqual({ subAccountId: 'acme_hq', msisdn: '447700900123', source: 'keyword', keyword: 'Stop', optedOutAt: AT });
    expect(decideOptOut(start, out)).toEqual([
      { type: 'RecipientOptedIn', schemaVersion: 1, data: { ...target, source: 'admin', keyword: null, optedInAt: '2030-01-15T11:00:00.000Z' } },
    ]);
    expect(after(out, start)).toEqual(NO_OPT_OUT);
  });

  it('appends nothing for a second STOP or for an opt-in of someone who never opted out', () => {
    expect(decideOptOut(stop, after(NO_OPT_OUT, stop))).toEqual([]);
    expect(decideOptOut(start, NO_OPT_OUT)).toEqual([]);
  });
});
