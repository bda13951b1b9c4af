import { eventually, type RunningStack } from '@seed/platform-testing';
import type { SmsBatchDb } from './support/database';
import { sendBatch, ukMobile, type Account } from './support/http';
import { smsc } from './support/smsc';
import { messageInState, stateChanges } from './support/sms-read';
import { useStack } from './support/stack';

/** Receipt states that end a message undelivered, with the errorMessage the platform reports for each. */
const FAILURES: Record<string, string> = {
  UNDELIV: 'Message is undeliverable',
  EXPIRED: 'Message validity period expired',
  REJECTD: 'Message rejected by the carrier',
};

/** How messages end, driven by the SMSC simulator's settings (PUT /config) while the stack runs. */
describe('carrier outcomes: final states, refused destinations, message id formats', () => {
  const ctx = useStack();
  let stack: RunningStack;
  let db: SmsBatchDb;
  let account: Account;
  const sim = () => smsc(stack.smscUrl);

  beforeAll(async () => {
    ({ stack, db } = ctx);
    account = await stack.createAccount();
  });

  afterEach(async () => {
    await sim().configure({ finalStates: 'DELIVRD:100', rejectPrefixes: [], messageIdFormat: 'hex' });
  });

  /** Sends one message per destination; returns their umids in order. */
  async function send(destinations: string[], text = 'Outcome test'): Promise<string[]> {
    const batch = await sendBatch(stack, account, { includeMessagesInResponse: true, template: { text }, messages: destinations.map((destination) => ({ destination })) });
    expect(batch.acceptedCount).toBe(destinations.length);
    return batch.messages?.map((m) => m.umid) ?? [];
  }

  /** The data of the message's MessageUndelivered event, from the sms-batch log. */
  async function undeliveredEvent(umid: string): Promise<Record<string, unknown>> {
    const [row] = await db.query<{ data: Record<string, unknown> }>(
      `SELECT data FROM ${db.table('events')} WHERE stream_id = $1 AND type = 'MessageUndelivered'`,
      [`sms-message-${umid}`],
    );
    return row?.data ?? {};
  }

  it('reports a failure receipt (UNDELIV) as undelivered with the receipt state as detail and the carrier error code', async () => {
    await sim().configure({ finalStates: 'UNDELIV:100' });
    const [umid] = await send([ukMobile(2001)]);
    const view = await messageInState(stack, account, umid as string, 'undelivered');
    expect(view.status).toEqual({ state: 'undelivered', detail: 'UNDELIV', errorCode: expect.stringMatching(/^\d{3}$/), errorMessage: FAILURES['UNDELIV'], timestamp: expect.any(String) });
    expect(view.status.errorCode).not.toBe('000');
    expect(stateChanges(view)).toEqual(['queued', 'sent', 'undelivered']);
    expect(await undeliveredEvent(umid as string)).toMatchObject({ reason: 'receipt', detail: 'UNDELIV', receipt: { stat: 'UNDELIV', err: view.status.errorCode } });
    const [atSmsc] = await sim().messages(ukMobile(2001));
    expect(atSmsc?.receipt?.state).toBe('UNDELIV');
  });

  it('ends each message of a weighted mix in the state of its receipt', async () => {
    await sim().configure({ finalStates: 'DELIVRD:40,UNDELIV:20,EXPIRED:20,REJECTD:20' });
    const destinations = Array.from({ length: 60 }, (_, i) => ukMobile(3000 + i));
    const umids = await send(destinations);
    const rows = await eventually(async () => {
      const found = await db.query<{ destination: string; state: string; detail: string; error_code: string | null; error_message: string | null }>(
        `SELECT destination, state, detail, error_code, error_message FROM ${db.table('messages')} WHERE umid = ANY($1::uuid[]) AND state IN ('delivered', 'undelivered')`,
        [umids],
      );
      return found.length === umids.length ? found : undefined;
    }, 20_000, 200);
    const receiptStates = new Map<string, string>();
    for (const m of await sim().all()) if (m.receipt) receiptStates.set(m.destination, m.receipt.state);
    for (const row of rows) {
      const stat = receiptStates.get(row.destination);
      if (stat === 'DELIVRD') expect(row).toMatchObject({ state: 'delivered', error_code: null });
      else expect(row).toMatchObject({ state: 'undelivered', detail: stat, error_message: FAILURES[stat as string] });
    }
    expect(new Set(receiptStates.values())).toEqual(new Set(['DELIVRD', 'UNDELIV', 'EXPIRED', 'REJECTD']));
  });

  it('ends a permanently refused destination (ESME_RINVDSTADR) undelivered as carrier-rejected, without retrying it', async () => {
    const refused = ukMobile(29001);
    await sim().configure({ rejectPrefixes: [refused.slice(0, 10)] });
    const rejectedBefore = (await sim().stats()).rejected;
    const [umid, fine] = await send([refused, ukMobile(2002)]);
    const view = await messageInState(stack, account, umid as string, 'undelivered');
    expect(view.status).toMatchObject({ detail: 'submit_sm refused: 0x0000000B', errorCode: '0x0000000B' });
    expect(stateChanges(view)).toEqual(['queued', 'undelivered']);
    expect(await undeliveredEvent(umid as string)).toMatchObject({ reason: 'carrier-rejected', errorCode: '0x0000000B', receipt: null });
    await messageInState(stack, account, fine as string, 'delivered');
    expect(await sim().messages(refused)).toEqual([]);
    expect((await sim().stats()).rejected - rejectedBefore).toBe(1);
  });

  it.each([
    ['decimal', /^\d{9,10}$/],
    ['hex', /^[0-9a-f]{8}$/],
  ])('matches receipts to messages when the carrier gives %s message ids, for single and concatenated messages', async (format, idPattern) => {
    await sim().configure({ messageIdFormat: format });
    const base = format === 'hex' ? 4000 : 4100;
    const [short] = await send([ukMobile(base)], `Ids in ${format}`);
    const [long] = await send([ukMobile(base + 1)], `Ids in ${format}: ${'a long text in two parts '.repeat(8)}`);
    for (const [umid, destination, parts] of [[short, ukMobile(base), 1], [long, ukMobile(base + 1), 2]] as const) {
      const view = await messageInState(stack, account, umid as string, 'delivered');
      const ids = view.history.find((h) => h.event === 'MessageSent')?.carrierMessageIds ?? [];
      expect(ids).toHaveLength(parts);
      for (const id of ids) expect(id).toMatch(idPattern);
      const [atSmsc] = await sim().messages(destination);
      expect(atSmsc?.messageIds).toEqual(ids);
      expect(atSmsc?.receipts.map((r) => r.messageId)).toEqual(ids);
    }
  });
});
