import type { RunningStack } from '@seed/platform-testing';
import { addSubAccount } from './support/admin';
import type { SmsBatchDb } from './support/database';
import { inMinutes, QUEUED, REJECTED, sendBatch, ukMobile, UUID, type Account, type BatchMessage } from './support/http';
import { useStack } from './support/stack';

/** POST /sms/v1/{subAccountId}/many: what a well-formed request gets back (seed-messaging-api.md, endpoint 3). */
describe('batch SMS: accepted requests', () => {
  const ctx = useStack();
  let stack: RunningStack;
  let db: SmsBatchDb;
  let account: Account;

  beforeAll(async () => {
    ({ stack, db } = ctx);
    account = await stack.createAccount();
  });

  /** The MessageQueued event of a message: the merged properties it will be sent with. */
  async function queuedData(umid: string): Promise<Record<string, unknown>> {
    const [row] = await db.query<{ data: Record<string, unknown> }>(
      `SELECT data FROM ${db.table('events')} WHERE stream_id = $1 AND type = 'MessageQueued'`,
      [`sms-message-${umid}`],
    );
    if (!row) throw new Error(`no MessageQueued event for ${umid}`);
    return row.data;
  }

  it('merges the template into every message, each item overriding what it sets itself', async () => {
    const templateExpiry = inMinutes(60);
    const ownExpiry = inMinutes(30);
    const res = await sendBatch(stack, account, {
      template: { text: 'Hello from Seed', source: 'SeedCo', encoding: 'AUTO', expiry: templateExpiry, dlrCallbackUrl: 'https://hooks.example.com/t' },
      includeMessagesInResponse: true,
      messages: [
        { destination: '+447911000001', clientMessageId: 'template-only' },
        { destination: '+447911000002', clientMessageId: 'own-text', text: 'Привет из Seed' },
        { destination: '+447911000003', clientMessageId: 'own-encoding', encoding: 'UCS2' },
        { destination: '+447911000004', clientMessageId: 'own-source', source: '4479110000' },
        { destination: '+447911000005', clientMessageId: 'own-expiry-and-url', expiry: ownExpiry, dlrCallbackUrl: 'https://hooks.example.com/m' },
        { destination: '+447911000006', clientMessageId: 'own-source-too-long', source: 'ABCDEFGHIJKL' },
        { destination: '+447911000007', clientMessageId: 'own-expiry-past', expiry: inMinutes(-1) },
      ],
    });
    expect(res).toMatchObject({ acceptedCount: 5, rejectedCount: 2 });
    const byId = new Map((res.messages ?? []).map((m) => [m.clientMessageId, m]));
    expect(byId.get('template-only')).toMatchObject({ encoding: 'GSM7', status: { code: 'QUEUED' } });
    expect(byId.get('own-text')).toMatchObject({ encoding: 'UCS2', status: { code: 'QUEUED' } });
    expect(byId.get('own-encoding')).toMatchObject({ encoding: 'UCS2', status: { code: 'QUEUED' } });
    expect(byId.get('own-source-too-long')?.status).toEqual({ code: 'REJECTED', description: REJECTED.sourceTooLong });
    expect(byId.get('own-expiry-past')?.status).toEqual({ code: 'REJECTED', description: REJECTED.expiryReached });

    const sent = async (id: string) => queuedData(byId.get(id)?.umid ?? '');
    expect(await sent('template-only')).toMatchObject({
      text: 'Hello from Seed',
      source: 'SeedCo',
      expiry: templateExpiry,
      dlrCallbackUrl: 'https://hooks.example.com/t',
    });
    expect(await sent('own-text')).toMatchObject({ text: 'Привет из Seed', source: 'SeedCo' });
    expect(await sent('own-source')).toMatchObject({ text: 'Hello from Seed', source: '4479110000' });
    expect(await sent('own-expiry-and-url')).toMatchObject({ expiry: ownExpiry, dlrCallbackUrl: 'https://hooks.example.com/m' });
  });

  it('queues an item whose own future expiry overrides a template expiry already past', async () => {
    const res = await sendBatch(stack, account, {
      template: { text: 'Hi', expiry: inMinutes(-5) },
      includeMessagesInResponse: true,
      messages: [{ destination: '+447911000010', expiry: inMinutes(5) }, { destination: '+447911000011' }],
    });
    expect(res.messages?.map((m) => m.status.description)).toEqual([QUEUED, REJECTED.expiryReached]);
  });

  it('lists one entry per message in request order when includeMessagesInResponse is true', async () => {
    const res = await sendBatch(stack, account, {
      template: { text: 'Your order has shipped' },
      includeMessagesInResponse: true,
      messages: [
        { destination: '+447911000021', clientMessageId: 'a' },
        { destination: '00447911000022', clientMessageId: 'b' },
        { destination: '447911000023' },
        { destination: '+44 7911 000024', clientMessageId: 'd', text: 'Ваш заказ отправлен' },
        { destination: '07911000025', country: 'GB', clientMessageId: 'e' },
      ],
    });
    expect(res.batchId).toMatch(UUID);
    expect(res).not.toHaveProperty('clientBatchId');
    expect(res).toMatchObject({ acceptedCount: 5, rejectedCount: 0 });
    const messages = res.messages as BatchMessage[];
    expect(messages.map((m) => [m.clientMessageId, m.destination, m.encoding])).toEqual([
      ['a', '447911000021', 'GSM7'],
      ['b', '447911000022', 'GSM7'],
      [undefined, '447911000023', 'GSM7'],
      ['d', '447911000024', 'UCS2'],
      ['e', '447911000025', 'GSM7'],
    ]);
    expect(messages[2]).not.toHaveProperty('clientMessageId');
    for (const message of messages) {
      expect(Object.keys(message).sort()).toEqual(expect.arrayContaining(['destination', 'encoding', 'status', 'umid']));
      expect(message.umid).toMatch(UUID);
      expect(message.status).toEqual({ code: 'QUEUED', description: 'SMS is accepted and queued for processing' });
    }
    expect(new Set(messages.map((m) => m.umid)).size).toBe(5);
  });

  it('omits messages when includeMessagesInResponse is false or absent', async () => {
    const body = { template: { text: 'Hi' }, messages: [{ destination: '+447911000031' }, { destination: 'nope' }] };
    for (const include of [false, undefined]) {
      const res = await sendBatch(stack, account, { ...body, ...(include === undefined ? {} : { includeMessagesInResponse: include }) });
      expect(Object.keys(res).sort()).toEqual(['acceptedCount', 'batchId', 'rejectedCount']);
      expect(res).toMatchObject({ acceptedCount: 1, rejectedCount: 1 });
    }
  });

  it('rejects messages one by one with the contract descriptions, and counts them', async () => {
    const gsm = (n: number, c = 'a') => c.repeat(n);
    const cases: [string, Record<string, unknown>, string, ('GSM7' | 'UCS2')?][] = [
      ['no text', {}, REJECTED.textMissing],
      ['empty text', { text: '' }, REJECTED.textMissing],
      ['1,530 GSM-7 chars', { text: gsm(1530) }, QUEUED, 'GSM7'],
      ['1,531 GSM-7 chars', { text: gsm(1531) }, REJECTED.textTooLong],
      // An extension character counts two septets and never straddles two parts.
      ['760 extension chars (1,520 septets)', { text: gsm(760, '€') }, QUEUED, 'GSM7'],
      ['1,529 chars and one extension char', { text: `${gsm(1529)}€` }, REJECTED.textTooLong],
      ['670 UCS-2 chars', { text: gsm(670, 'Ж') }, QUEUED, 'UCS2'],
      ['671 UCS-2 chars', { text: gsm(671, 'Ж') }, REJECTED.textTooLong],
      ['671 chars forced to UCS2', { text: gsm(671), encoding: 'UCS2' }, REJECTED.textTooLong],
      ['11 alphanumeric source', { text: 'x', source: 'ABCDEFGHIJK' }, QUEUED],
      ['12 alphanumeric source', { text: 'x', source: 'ABCDEFGHIJKL' }, REJECTED.sourceTooLong],
      ['16 digit source', { text: 'x', source: '1234567890123456' }, QUEUED],
      ['17 digit source', { text: 'x', source: '12345678901234567' }, REJECTED.sourceTooLong],
      ['expiry in the past', { text: 'x', expiry: inMinutes(-1) }, REJECTED.expiryReached],
      ['expiry in the future', { text: 'x', expiry: inMinutes(10) }, QUEUED],
    ];
    const destinationCases: [string, Record<string, unknown>, string, string?][] = [
      ['national without country', { destination: '07911000040' }, REJECTED.invalidMsisdn],
      ['national with country', { destination: '07911000041', country: 'GB' }, QUEUED, '447911000041'],
      ['international with country', { destination: '+12025550123', country: 'GB' }, QUEUED, '12025550123'],
      ['letters', { destination: 'not-a-number' }, REJECTED.invalidMsisdn],
      ['no such number', { destination: '+447911999999' }, REJECTED.invalidMsisdn],
      ['too short', { destination: '+4479' }, REJECTED.invalidMsisdn],
      ['missing', { destination: undefined }, REJECTED.invalidMsisdn],
    ];
    const items = [
      ...cases.map(([name, props], i) => ({ destination: ukMobile(100 + i), clientMessageId: name, ...props })),
      ...destinationCases.map(([name, props]) => ({ clientMessageId: name, text: 'x', ...props })),
    ];
    const res = await sendBatch(stack, account, { includeMessagesInResponse: true, messages: items });

    const got = (res.messages ?? []).map((m) => [m.clientMessageId, m.status.description]);
    expect(got).toEqual([...cases, ...destinationCases].map(([name, , description]) => [name, description]));
    for (const m of res.messages ?? []) expect(m.status.code).toBe(m.status.description === QUEUED ? 'QUEUED' : 'REJECTED');
    for (const [i, [, , , encoding]] of cases.entries()) if (encoding) expect(res.messages?.[i]?.encoding).toBe(encoding);
    for (const [i, [, , , destination]] of destinationCases.entries()) {
      if (destination) expect(res.messages?.[cases.length + i]?.destination).toBe(destination);
    }
    const queued = got.filter(([, d]) => d === QUEUED).length;
    expect(res).toMatchObject({ acceptedCount: queued, rejectedCount: items.length - queued });
    expect(queued).toBe(8);
  });

  it('answers a repeated clientBatchId with the first response and appends nothing', async () => {
    const body = {
      clientBatchId: 'campaign-2026-11',
      template: { text: 'Sale starts today' },
      includeMessagesInResponse: true,
      messages: [{ destination: '+447911000051', clientMessageId: 'm1' }, { destination: 'bad' }],
    };
    const first = await sendBatch(stack, account, body);
    expect(first).toMatchObject({ clientBatchId: 'campaign-2026-11', acceptedCount: 1, rejectedCount: 1 });
    const events = await db.eventCount();

    const again = await sendBatch(stack, account, body);
    expect(again).toEqual(first);
    // Even with other content: the clientBatchId decides, nothing of the new content is taken.
    const changed = await sendBatch(stack, account, { ...body, messages: [{ destination: '+447911000052', text: 'other' }] });
    expect(changed.batchId).toBe(first.batchId);
    expect(changed.messages?.map((m) => m.umid)).toEqual(first.messages?.map((m) => m.umid));
    const withoutList = await sendBatch(stack, account, { ...body, includeMessagesInResponse: false });
    expect(withoutList).toMatchObject({ batchId: first.batchId, clientBatchId: 'campaign-2026-11', acceptedCount: 1, rejectedCount: 1 });

    expect(await db.eventCount()).toBe(events);
    expect(await db.count('client_batch_ids', 'client_batch_id = $1', ['campaign-2026-11'])).toBe(1);
  });

  it('keeps clientBatchId unique per sub-account, not across sub-accounts or accounts', async () => {
    const branch = `${account.accountId}_branch`;
    await addSubAccount(stack, account.accountId, branch);
    const other = await stack.createAccount();
    const body = { clientBatchId: 'shared-ref', template: { text: 'Hi' }, includeMessagesInResponse: true, messages: [{ destination: '+447911000061' }] };

    const hq = await sendBatch(stack, account, body);
    const inBranch = await sendBatch(stack, { subAccountId: branch, apiKey: account.apiKey }, body);
    const inOther = await sendBatch(stack, other, body);
    const ids = [hq, inBranch, inOther].map((r) => r.batchId);
    expect(new Set(ids).size).toBe(3);
    const umids = [hq, inBranch, inOther].map((r) => r.messages?.[0]?.umid);
    expect(new Set(umids).size).toBe(3);
    for (const r of [hq, inBranch, inOther]) expect(r).toMatchObject({ clientBatchId: 'shared-ref', acceptedCount: 1 });
    expect((await sendBatch(stack, { subAccountId: branch, apiKey: account.apiKey }, body)).batchId).toBe(inBranch.batchId);
  });

  it('accepts 10,000 personalised messages in one request', async () => {
    const messages = Array.from({ length: 10_000 }, (_, i) => ({
      destination: i % 1000 === 999 ? `+44791199${String(i).padStart(4, '0')}` : `+${ukMobile(i)}`,
      clientMessageId: `c-${i}`,
      text: `Dear customer ${i}, your code is ${(i * 7919) % 100000}`,
    }));
    const events = await db.eventCount();
    const started = Date.now();
    const res = await sendBatch(stack, account, { template: { source: 'SeedCo' }, includeMessagesInResponse: true, messages });
    const tookMs = Date.now() - started;

    expect(res).toMatchObject({ acceptedCount: 9_990, rejectedCount: 10 });
    expect(res.messages).toHaveLength(10_000);
    expect(res.messages?.every((m, i) => m.clientMessageId === `c-${i}`)).toBe(true);
    expect(res.messages?.filter((m) => m.status.code === 'REJECTED').map((m) => m.clientMessageId)).toEqual(
      Array.from({ length: 10 }, (_, k) => `c-${k * 1000 + 999}`),
    );
    expect(new Set(res.messages?.map((m) => m.umid)).size).toBe(10_000);
    expect(await db.eventCount()).toBe(events + 10_001);
    expect(tookMs).toBeLessThan(30_000);
  });
});
