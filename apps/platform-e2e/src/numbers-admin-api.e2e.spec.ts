import { randomInt } from 'node:crypto';
import type { RunningStack } from '@seed/platform-testing';
import { addSubAccount } from './support/admin';
import { expectApiError, ISO_UTC, request, type Account } from './support/http';
import { consumeUntil } from './support/kafka';
import { useStack } from './support/stack';

interface NumberView {
  number: string;
  accountId: string;
  subAccountId: string;
  inboundWebhookUrl: string | null;
  helpText: string | null;
  assignedAt: string;
}

// 07700 900xxx: UK numbers kept for tests, never a subscriber's. Drawn per run so the numbers are this file's own.
const LONG = `447700900${String(randomInt(1000)).padStart(3, '0')}`;
const SHORT = String(60_000 + randomInt(10_000));
const HELP = 'Acme alerts: reply STOP to opt out. Help: support@acme.example';

/**
 * The numbers admin API over HTTP, against the stack as `npm start` runs it: a number is assigned,
 * read back under either spelling, listed, moved to another sub-account and released; bad input,
 * another account's sub-account and a missing token change nothing. What an inbound SMS to a
 * number does is the inbound path's subject.
 */
describe('numbers admin API', () => {
  const ctx = useStack();
  let stack: RunningStack;
  let acme: Account;
  let acmeEu: string;
  let other: Account;
  let call: (method: string, path: string, body?: unknown, token?: string | null) => Promise<Response>;
  const json = async <T>(res: Response, status = 200): Promise<T> => {
    const text = await res.text();
    expect({ status: res.status, text: res.status === status ? '' : text }).toEqual({ status, text: '' });
    return (text ? JSON.parse(text) : undefined) as T;
  };
  const list = async (subAccountId?: string): Promise<NumberView[]> =>
    (await json<{ numbers: NumberView[] }>(await call('GET', `/numbers${subAccountId === undefined ? '' : `?subAccountId=${subAccountId}`}`))).numbers;
  const ours = async () => (await list()).filter((n) => n.number === LONG || n.number === SHORT);

  beforeAll(async () => {
    ({ stack } = ctx);
    acme = await stack.createAccount();
    acmeEu = `${acme.accountId}_eu`;
    await addSubAccount(stack, acme.accountId, acmeEu);
    other = await stack.createAccount();
    call = (method, path, body, token = stack.adminToken) => request(`${stack.adminUrl}/admin/v1${path}`, { method, token, ...(body === undefined ? {} : { body }) });
  });

  it('assigns a number and reads it back under either spelling; the same PUT again changes nothing', async () => {
    const body = { accountId: acme.accountId, subAccountId: acme.subAccountId, inboundWebhookUrl: 'https://hooks.acme.example/inbound', helpText: HELP };
    const view = await json<NumberView>(await call('PUT', `/numbers/%2B${LONG}`, body));
    expect(view).toEqual({ number: LONG, ...body, assignedAt: expect.stringMatching(ISO_UTC) });
    expect(await json(await call('GET', `/numbers/${LONG}`))).toEqual(view);
    expect(await json(await call('GET', `/numbers/%2B${LONG}`))).toEqual(view);
    expect(await json(await call('GET', `/numbers/+${LONG}`))).toEqual(view);
    expect(await json(await call('PUT', `/numbers/${LONG}`, body))).toEqual(view);
  });

  it("lists every number and one sub-account's, by number", async () => {
    const short = await json<NumberView>(await call('PUT', `/numbers/${SHORT}`, { accountId: acme.accountId, subAccountId: acme.subAccountId }));
    expect(short).toEqual({ number: SHORT, accountId: acme.accountId, subAccountId: acme.subAccountId, inboundWebhookUrl: null, helpText: null, assignedAt: expect.stringMatching(ISO_UTC) });
    expect((await list(acme.subAccountId)).map((n) => n.number)).toEqual([LONG, SHORT]);
    expect((await ours()).map((n) => n.number)).toEqual([LONG, SHORT]);
    const all = (await list()).map((n) => n.number);
    expect(all).toEqual([...all].sort());
    expect(await list(other.subAccountId)).toEqual([]);
  });

  it('moves a number to another sub-account of the account', async () => {
    const moved = await json<NumberView>(await call('PUT', `/numbers/${LONG}`, { accountId: acme.accountId, subAccountId: acmeEu, helpText: HELP }));
    expect(moved).toMatchObject({ number: LONG, subAccountId: acmeEu, inboundWebhookUrl: null, helpText: HELP });
    expect(await json(await call('GET', `/numbers/${LONG}`))).toEqual(moved);
    expect((await list(acme.subAccountId)).map((n) => n.number)).toEqual([SHORT]);
    expect(await list(acmeEu)).toEqual([moved]);
  });

  it('sends every numbers command to sms-batch with the one numbers key, so that they are decided in order', async () => {
    const records = await consumeUntil(`${stack.topicPrefix}sms-batch.commands.v1`, (all) => all.filter((r) => r.value['type'] === 'PutNumber').length >= 4);
    const numbers = records.filter((r) => ['PutNumber', 'GetNumber', 'ListNumbers'].includes(String(r.value['type'])));
    expect(new Set(numbers.map((r) => r.key))).toEqual(new Set(['numbers']));
    expect(records.filter((r) => r.value['type'] === 'PutNumber').map((r) => r.value['data'])).toContainEqual({
      number: SHORT,
      assignment: { accountId: acme.accountId, subAccountId: acme.subAccountId, inboundWebhookUrl: null, helpText: null, carriers: null },
    });
  });

  it.each<[string, string, Record<string, unknown>, string]>([
    ['too few digits', '%2B4477', {}, 'must be a long number in international form'],
    ['letters', '44770090012a', {}, 'must be a long number in international form'],
    ['an ftp webhook URL', LONG, { inboundWebhookUrl: 'ftp://hooks.acme.example/in' }, 'inboundWebhookUrl must be an http or https URL'],
    ['a webhook URL with credentials', LONG, { inboundWebhookUrl: 'https://u:p@hooks.acme.example/in' }, 'inboundWebhookUrl must not carry credentials'],
    ['a webhook URL of 2049 characters', LONG, { inboundWebhookUrl: `https://h.example/${'a'.repeat(2031)}` }, 'inboundWebhookUrl must be at most 2048 characters'],
    ['an empty help text', LONG, { helpText: '' }, 'helpText must be 1-459 characters'],
    ['a help text of 460 characters', LONG, { helpText: 'x'.repeat(460) }, 'helpText must be 1-459 characters'],
  ])('refuses %s with 400, code 1000, and changes nothing', async (_name, number, fields, message) => {
    const before = await ours();
    const error = await expectApiError(await call('PUT', `/numbers/${number}`, { accountId: acme.accountId, subAccountId: acme.subAccountId, ...fields }), 400, 1000);
    expect(error.message).toContain(message);
    expect(await ours()).toEqual(before);
  });

  it("answers 404 for another account's sub-account and an unknown account, and changes nothing", async () => {
    const before = await ours();
    const foreign = await expectApiError(await call('PUT', `/numbers/${LONG}`, { accountId: acme.accountId, subAccountId: other.subAccountId }), 404, 1300);
    expect(foreign.message).toBe(`account ${acme.accountId} has no sub-account ${other.subAccountId}`);
    await expectApiError(await call('PUT', `/numbers/${LONG}`, { accountId: 'nobody-e2e', subAccountId: 'nobody-e2e_hq' }), 404, 1300);
    await expectApiError(await call('GET', '/numbers?subAccountId=nobody-e2e_hq'), 404, 1300);
    expect(await ours()).toEqual(before);
    expect(await list(other.subAccountId)).toEqual([]);
  });

  it('needs the admin token', async () => {
    const before = await ours();
    await expectApiError(await call('GET', '/numbers', undefined, null), 401, 1200);
    await expectApiError(await call('PUT', `/numbers/${LONG}`, { accountId: acme.accountId, subAccountId: acme.subAccountId }, null), 401, 1200);
    await expectApiError(await call('DELETE', `/numbers/${SHORT}`, undefined, 'not-the-operator-secret-at-all'), 401, 1200);
    expect(await ours()).toEqual(before);
  });

  it('releases a number: 204, then 404 for it', async () => {
    for (const number of [`%2B${LONG}`, SHORT]) {
      const res = await call('DELETE', `/numbers/${number}`);
      expect({ number, status: res.status, text: await res.text() }).toEqual({ number, status: 204, text: '' });
      await expectApiError(await call('GET', `/numbers/${number}`), 404, 1300);
      await expectApiError(await call('DELETE', `/numbers/${number}`), 404, 1300);
    }
    expect(await ours()).toEqual([]);
    await expectApiError(await call('GET', '/numbers/not-a-number'), 404, 1300);
  });
});
