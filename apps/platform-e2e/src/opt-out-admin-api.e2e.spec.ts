import { eventually, type RunningStack } from '@seed/platform-testing';
import { expectApiError, ISO_UTC, request, type Account } from './support/http';
import { consumeUntil } from './support/kafka';
import { useStack } from './support/stack';

const UK = '447911123456';
const DE = '4915112345678';

interface OptOut {
  subAccountId: string;
  msisdn: string;
  source: string;
  keyword: string | null;
  optedOutAt: string;
}
interface OptOutPage {
  optOuts: OptOut[];
  next: string | null;
}

/**
 * The opt-out admin API over HTTP, against the stack as `npm start` runs it: an operator opts a
 * recipient out and back in, whichever way the number is written; other accounts' sub-accounts,
 * bad numbers and a missing token change nothing. That an opted-out recipient gets no message is
 * sms-batch's subject, tested with its sending.
 */
describe('opt-outs admin API', () => {
  const ctx = useStack();
  let stack: RunningStack;
  let acme: Account;
  let other: Account;
  let call: (method: string, path: string, token?: string | null) => Promise<Response>;
  const json = async <T>(res: Response, status = 200): Promise<T> => {
    const text = await res.text();
    expect({ status: res.status, text: res.status === status ? '' : text }).toEqual({ status, text: '' });
    return (text ? JSON.parse(text) : undefined) as T;
  };
  const optOuts = (account: Pick<Account, 'accountId' | 'subAccountId'>) => `/accounts/${account.accountId}/sub-accounts/${account.subAccountId}/opt-outs`;
  const list = async (account: Account, query = ''): Promise<OptOutPage> => json<OptOutPage>(await call('GET', `${optOuts(account)}${query}`));
  // The list is sms-batch's read model: a change is listed once its follower has it, milliseconds later.
  const listedWith = (account: Account, count: number): Promise<OptOutPage> =>
    eventually(async () => {
      const page = await list(account);
      return page.optOuts.length === count ? page : undefined;
    }, 10_000);

  beforeAll(async () => {
    ({ stack } = ctx);
    acme = await stack.createAccount();
    other = await stack.createAccount();
    call = (method, path, token = stack.adminToken) => request(`${stack.adminUrl}/admin/v1${path}`, { method, token });
  });

  it('opts a recipient out and reads it back under any spelling of the number', async () => {
    const view = await json<OptOut>(await call('PUT', `${optOuts(acme)}/%2B${UK}`));
    expect(view).toEqual({ subAccountId: acme.subAccountId, msisdn: UK, source: 'admin', keyword: null, optedOutAt: expect.stringMatching(ISO_UTC) });
    expect(await json(await call('GET', `${optOuts(acme)}/00${UK}`))).toEqual(view);
    expect(await json(await call('GET', `${optOuts(acme)}/${UK}`))).toEqual(view);
    expect(await listedWith(acme, 1)).toEqual({ optOuts: [view], next: null });
    // Again: the stored opt-out, its first time kept.
    expect(await json(await call('PUT', `${optOuts(acme)}/${UK}`))).toEqual(view);
  });

  it('lists by MSISDN, a page at a time', async () => {
    const de = await json<OptOut>(await call('PUT', `${optOuts(acme)}/%2B${DE}`));
    await listedWith(acme, 2);
    const first = await list(acme, '?limit=1');
    expect(first).toEqual({ optOuts: [expect.objectContaining({ msisdn: UK })], next: UK });
    expect(await list(acme, `?limit=1&after=${UK}`)).toEqual({ optOuts: [de], next: null });
    await expectApiError(await call('GET', `${optOuts(acme)}?limit=0`), 400, 1000);
    await expectApiError(await call('GET', `${optOuts(acme)}?after=%2B${UK}`), 400, 1000);
  });

  it("sends each change to sms-batch keyed by the sub-account, so that one sub-account's changes stay in order", async () => {
    const records = await consumeUntil(`${stack.topicPrefix}sms-batch.commands.v1`, (all) => all.filter((r) => r.value['type'] === 'OptOut').length >= 3);
    const changes = records.filter((r) => r.value['type'] === 'OptOut');
    expect(changes.map((r) => r.key)).toEqual(changes.map(() => acme.subAccountId));
    expect(changes.map((r) => r.value['data'])).toContainEqual({ accountId: acme.accountId, subAccountId: acme.subAccountId, msisdn: DE, source: 'admin', keyword: null });
  });

  it('opts a recipient back in: 204, then 404 for it, and 204 again', async () => {
    const res = await call('DELETE', `${optOuts(acme)}/%2B${UK}`);
    expect(res.status).toBe(204);
    expect(await res.text()).toBe('');
    await expectApiError(await call('GET', `${optOuts(acme)}/${UK}`), 404, 1300);
    expect((await call('DELETE', `${optOuts(acme)}/${UK}`)).status).toBe(204);
    expect((await listedWith(acme, 1)).optOuts.map((o) => o.msisdn)).toEqual([DE]);
  });

  it("answers 404 for another account's sub-account and an unknown account, and changes nothing", async () => {
    const foreign = optOuts({ accountId: acme.accountId, subAccountId: other.subAccountId });
    for (const method of ['PUT', 'GET', 'DELETE']) await expectApiError(await call(method, `${foreign}/${UK}`), 404, 1300);
    await expectApiError(await call('GET', foreign), 404, 1300);
    await expectApiError(await call('PUT', `${optOuts({ accountId: 'nobody-e2e', subAccountId: 'nobody-e2e_hq' })}/${UK}`), 404, 1300);
    await expectApiError(await call('GET', `${optOuts({ accountId: acme.accountId, subAccountId: 'bad%00id' })}/${UK}`), 404, 1300);
    expect(await list(other)).toEqual({ optOuts: [], next: null });
  });

  it.each<[string, string]>([
    ['too few digits', '%2B4479'],
    ['a national number', '07911123456'],
    ['a number outside the numbering plan', '%2B447700900123'],
    ['letters', '44791112345a'],
  ])('refuses %s with 400, code 1000, and changes nothing', async (_name, msisdn) => {
    const before = await list(acme);
    const error = await expectApiError(await call('PUT', `${optOuts(acme)}/${msisdn}`), 400, 1000);
    expect(error.message).toContain('must be a valid international number');
    await expectApiError(await call('DELETE', `${optOuts(acme)}/${msisdn}`), 400, 1000);
    expect(await list(acme)).toEqual(before);
  });

  it('needs the admin token', async () => {
    const before = await list(acme);
    await expectApiError(await call('GET', optOuts(acme), null), 401, 1200);
    await expectApiError(await call('PUT', `${optOuts(acme)}/${UK}`, null), 401, 1200);
    await expectApiError(await call('DELETE', `${optOuts(acme)}/${DE}`, 'not-the-operator-secret-at-all'), 401, 1200);
    expect(await list(acme)).toEqual(before);
  });
});
