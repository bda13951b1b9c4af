import { eventually, type RunningStack } from '@seed/platform-testing';
import type { SmsBatchDb } from './support/database';
import { sendBatch, ukMobile, type Account } from './support/http';
import { smsc } from './support/smsc';
import { getMessage, messageInState, stateChanges } from './support/sms-read';
import { useStack } from './support/stack';

const inMs = (ms: number) => new Date(Date.now() + ms).toISOString();

/** Time at the carrier: throttling retried with backoff, scheduled hand-off, expiry before hand-off. */
describe('carrier timing: throttling, scheduled and expiring messages', () => {
  // Temporary refusals come back after 100 ms, doubling per attempt.
  const ctx = useStack({ SEND_RETRY_BASE_MS: '100' });
  let stack: RunningStack;
  let db: SmsBatchDb;
  let account: Account;
  const sim = () => smsc(stack.smscUrl);

  beforeAll(async () => {
    ({ stack, db } = ctx);
    account = await stack.createAccount();
  });

  it('delivers every message of a batch sent faster than the carrier allows: ESME_RTHROTTLED is retried, nothing is sent twice', async () => {
    await sim().configure({ throttlePerSecond: 20 });
    try {
      const destinations = Array.from({ length: 60 }, (_, i) => ukMobile(5000 + i));
      const batch = await sendBatch(stack, account, { template: { text: 'Throttled' }, messages: destinations.map((destination) => ({ destination })) });
      expect(batch.acceptedCount).toBe(60);
      await eventually(async () => {
        const done = await db.count('messages', "batch_id = $1 AND state = 'delivered'", [batch.batchId]);
        return done === 60 ? true : undefined;
      }, 30_000, 200);
      const stats = await sim().stats();
      expect(stats.throttled).toBeGreaterThan(0);
      const received = (await sim().all()).filter((m) => destinations.includes(m.destination));
      expect(received.map((m) => m.destination).sort()).toEqual([...destinations].sort());
      // No message was recorded as refused: a throttled submit leaves no trace in the log.
      expect(await db.count('events', "type = 'MessageUndelivered' AND data->>'batchId' = $1", [batch.batchId])).toBe(0);
    } finally {
      await sim().configure({ throttlePerSecond: 0 });
    }
  });

  it('hands a scheduled message to the carrier at its time, not before; one expiring before its schedule ends undelivered (expired) and is never sent', async () => {
    const scheduled = inMs(3000);
    const late = { scheduled: inMs(4000), expiry: inMs(2000) };
    const batch = await sendBatch(stack, account, {
      includeMessagesInResponse: true,
      template: { text: 'Later' },
      messages: [
        { destination: ukMobile(6001), scheduled },
        { destination: ukMobile(6002), ...late },
      ],
    });
    expect(batch.acceptedCount).toBe(2);
    const [onTime, expiring] = (batch.messages ?? []).map((m) => m.umid) as [string, string];

    // Accepted and waiting: queued in the read API, nothing at the carrier.
    const waiting = await getMessage(stack, account, onTime);
    expect(waiting).toMatchObject({ status: { state: 'queued' }, scheduled: new Date(scheduled).toISOString() });
    expect(await sim().messages(ukMobile(6001))).toEqual([]);

    const sent = await messageInState(stack, account, onTime, 'delivered', 15_000);
    expect(stateChanges(sent)).toEqual(['queued', 'sent', 'delivered']);
    const atSmsc = await sim().only(ukMobile(6001));
    expect(Date.parse(atSmsc.receivedAt)).toBeGreaterThanOrEqual(Date.parse(scheduled));
    expect(Date.parse(atSmsc.receivedAt)).toBeLessThan(Date.parse(scheduled) + 2000);

    const expired = await messageInState(stack, account, expiring, 'undelivered', 15_000);
    expect(expired).toMatchObject({ expiry: new Date(late.expiry).toISOString(), scheduled: new Date(late.scheduled).toISOString() });
    expect(expired.status).toMatchObject({ state: 'undelivered', detail: 'expiry passed before hand-off', errorCode: null });
    expect(stateChanges(expired)).toEqual(['queued', 'undelivered']);
    // Decided when it fell due, at its scheduled time.
    expect(Date.parse(expired.status.timestamp)).toBeGreaterThanOrEqual(Date.parse(late.scheduled));
    const [event] = await db.query<{ data: Record<string, unknown> }>(
      `SELECT data FROM ${db.table('events')} WHERE stream_id = $1 AND type = 'MessageUndelivered'`,
      [`sms-message-${expiring}`],
    );
    expect(event?.data).toMatchObject({ reason: 'expired', receipt: null });
    expect(await sim().messages(ukMobile(6002))).toEqual([]);
  });
});
