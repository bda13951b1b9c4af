import { eventually, type RunningStack } from '@seed/platform-testing';
import type { SmsBatchDb } from './support/database';
import { expectApiError, request, sendBatch, withoutIds, type Account, type BatchResponse } from './support/http';
import { smsc } from './support/smsc';
import { useStack } from './support/stack';

/**
 * `POST /sms/v1/{subAccountId}/many/compact` (product-decisions, "Compact batch"): one text to many
 * destinations, answered and decided exactly as the same batch sent to `many`.
 */
describe('compact batch', () => {
  const ctx = useStack();
  let stack: RunningStack;
  let db: SmsBatchDb;
  let account: Account;

  beforeAll(async () => {
    ({ stack, db } = ctx);
    account = await stack.createAccount();
  });

  const compactUrl = () => `${stack.messagingUrl}/sms/v1/${account.subAccountId}/many/compact`;
  const postCompact = (body: unknown) => request(compactUrl(), { token: account.apiKey, body });
  const sendCompact = async (body: unknown): Promise<BatchResponse> => {
    const res = await postCompact(body);
    expect(res.status).toBe(200);
    return (await res.json()) as BatchResponse;
  };

  it('answers as `many` does for the same messages, per-message rejections included, and the carrier gets each accepted one', async () => {
    const destinations = ['+447911000701', '447911000702', 'not a number', '+44 7911 000703'];
    const template = { text: 'Doors open at 9', source: 'ACME' };
    const compact = await sendCompact({ destinations, template, includeMessagesInResponse: true });
    const many = await sendBatch(stack, account, { template, includeMessagesInResponse: true, messages: destinations.map((destination) => ({ destination })) });

    expect(withoutIds(compact)).toEqual(withoutIds(many));
    expect(compact).toMatchObject({ acceptedCount: 3, rejectedCount: 1 });
    for (const destination of ['447911000701', '447911000702', '447911000703']) {
      // Once per batch, each sent through the same carrier path.
      const received = await eventually(async () => {
        const now = await smsc(stack.smscUrl).messages(destination);
        return now.length >= 2 && now.every((m) => m.complete) ? now : undefined;
      });
      expect(received.map((m) => m.text)).toEqual(['Doors open at 9', 'Doors open at 9']);
    }
  });

  it('shares clientBatchId with `many`: a repeat through either answers the first batch and writes nothing', async () => {
    const first = await sendCompact({ clientBatchId: 'compact-1', destinations: ['+447911000711'], template: { text: 'Once' }, includeMessagesInResponse: true });
    const events = await db.eventCount();
    expect(await sendCompact({ clientBatchId: 'compact-1', destinations: ['+447911000711'], template: { text: 'Once' }, includeMessagesInResponse: true })).toEqual(first);
    const viaMany = await sendBatch(stack, account, { clientBatchId: 'compact-1', includeMessagesInResponse: true, messages: [{ destination: '+447911000712', text: 'Other' }] });
    expect(viaMany).toEqual(first);
    expect(await db.eventCount()).toBe(events);
  });

  it.each([
    ['no destinations', { template: { text: 'Hi' } }, 1000],
    ['an empty destinations list', { destinations: [], template: { text: 'Hi' } }, 1000],
    ['a template without text', { destinations: ['+447911000721'], template: {} }, 1004],
    ['10,001 destinations', { destinations: Array.from({ length: 10_001 }, (_, i) => `+4479110${String(i).padStart(5, '0')}`), template: { text: 'Hi' } }, 1100],
  ])('refuses %s with 400 and writes nothing', async (_case, body, code) => {
    const before = await db.eventCount();
    await expectApiError(await postCompact(body), 400, code);
    expect(await db.eventCount()).toBe(before);
  });
});
