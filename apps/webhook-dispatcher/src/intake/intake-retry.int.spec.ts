import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { ConcurrencyError, type SqlExecutor } from '@seed/platform-event-store';
import { ensureTopics, eventTopic, MessageProducer, type KafkaConnection } from '@seed/platform-kafka';
import { eventually, testKafka, testLogger, uniqueName } from '@seed/platform-testing';
import { SMS_BATCH_EVENT_TOPIC } from '@seed/sms-batch-contracts';
import { accountStreamId } from '@seed/webhook-dispatcher-domain';
import { closeTestDeliveryStore, committedToEnd, openTestDeliveryStore, scriptedClient, testStatusChange, type TestDeliveryStore, type TestStatusChange } from '../sending/sender.test-helpers';
import { WebhookSender } from '../sending/webhook-sender';
import { INTAKE_DEAD_LETTERS, INTAKE_GROUP, StatusEventConsumer } from './status-event.consumer';

/**
 * The intake's transactions when they fail and are tried again: a new account's first changes
 * reaching two intakes at once, and a ConcurrencyError thrown into a batch after all of its work
 * was done (rows, dedup records, hand-overs to the sender). Nothing a rolled-back attempt did may
 * count: every status change is posted, once, and the offsets are committed only behind that.
 */
const schema = uniqueName('it_wh_intake_retry');
let store: TestDeliveryStore;
let ds: DataSource;

beforeAll(async () => {
  store = await openTestDeliveryStore(schema);
  ds = store.ds;
});
afterAll(() => closeTestDeliveryStore(ds, schema));

const change = (accountId: string, umid: string, type: 'MessageSent' | 'MessageDelivered', url: string): TestStatusChange => testStatusChange(type, { accountId, umid, url });

const secretEvents = async (accountId: string): Promise<number> =>
  ((await ds.query(`SELECT count(*)::int AS n FROM "${schema}".events WHERE stream_id = $1`, [accountStreamId(accountId)])) as { n: number }[])[0]?.n ?? -1;

describe('a new account whose first changes reach two intakes at once', () => {
  it('gets one signing secret, and neither intake fails on the other', async () => {
    const accountId = `new${randomUUID().slice(0, 8)}`;
    let firstInside: () => void = () => undefined;
    const inside = new Promise<void>((r) => (firstInside = r));
    let releaseFirst: () => void = () => undefined;
    const held = new Promise<void>((r) => (releaseFirst = r));
    // The first intake keeps its transaction open after giving the account its secret; the second
    // runs meanwhile, and must wait for it rather than append at the same version.
    const first = ds.transaction(async (tx) => {
      const n = await store.intake.accept(tx, [change(accountId, randomUUID(), 'MessageSent', 'https://first.example.org/a')]);
      firstInside();
      await held;
      return n;
    });
    await inside;
    const second = ds.transaction((tx) => store.intake.accept(tx, [change(accountId, randomUUID(), 'MessageSent', 'https://first.example.org/b')]));
    await new Promise((r) => setTimeout(r, 300));
    releaseFirst();
    await expect(Promise.all([first, second])).resolves.toEqual([1, 1]);
    expect(await secretEvents(accountId)).toBe(1);
    const [row] = (await ds.query(`SELECT sealed_secret IS NOT NULL AS sealed, version FROM "${schema}".account_webhooks WHERE account_id = $1`, [accountId])) as { sealed: boolean; version: number }[];
    expect(row).toEqual({ sealed: true, version: 1 });
  });
});

describe('a ConcurrencyError in the middle of a batch', () => {
  let connection: KafkaConnection;
  let producer: MessageProducer;
  let consumer: StatusEventConsumer;
  let sender: WebhookSender;
  const scripted = scriptedClient(async () => ({ kind: 'success', statusCode: 200 }));
  let failures = 0;
  let accepts = 0;

  beforeAll(async () => {
    connection = testKafka(schema);
    await ensureTopics(connection, [eventTopic(SMS_BATCH_EVENT_TOPIC), INTAKE_DEAD_LETTERS]);
    producer = new MessageProducer(connection);
    sender = new WebhookSender(store.deliveries, scripted.client, async (ids) => new Map(ids.map((id) => [id, ['whsec_test']])), testLogger(), {
      maxHeld: 200,
      endpointConcurrency: 8,
      leaseMs: 60_000,
      timeoutMs: 2000,
      idleMs: 20,
      retry: { baseDelayMs: 20, maxDelayMs: 20, maxAgeMs: 3_600_000 },
      breaker: { failureThreshold: 5, cooldownMs: 200 },
      writeDown: (items, leaseMs) => ds.transaction((tx) => store.directWrites.writeDown(tx, items, leaseMs)),
      recordSent: (eventIds) => store.directWrites.recordSent(ds.manager, eventIds),
    });
    // Every third transaction of the intake does all its work, then fails as a concurrent append
    // would: its rows, dedup records and the offers' takes (leased rows and direct deliveries,
    // handed to the caller's arrays) must all go with the rollback.
    const accept = store.intake.accept.bind(store.intake);
    jest.spyOn(store.intake, 'accept').mockImplementation(async (db: SqlExecutor, ...rest) => {
      const scheduled = await accept(db, ...rest);
      if (++accepts % 3 === 2) {
        failures++;
        throw new ConcurrencyError('injected: a stream was appended to concurrently');
      }
      return scheduled;
    });
    sender.start();
    consumer = new StatusEventConsumer(connection, producer, ds, store.intake, testLogger(), sender);
    await consumer.start();
  });

  afterAll(async () => {
    await consumer?.stop();
    await sender?.stop();
    await producer?.disconnect();
    const admin = connection.kafka.admin();
    await admin.connect();
    await admin.deleteTopics({ topics: [connection.topic(SMS_BATCH_EVENT_TOPIC), connection.topic(INTAKE_DEAD_LETTERS.name)] }).catch(() => undefined);
    await admin.disconnect();
  });

  it('posts every status change once and commits the offsets only behind them', async () => {
    const url = 'https://hooks.example.com/retry';
    // Accounts old and new: an old one's changes may go to the sender directly, a new one's first
    // changes give it a secret in the same transaction.
    const accounts = ['old', ...Array.from({ length: 4 }, () => `new${randomUUID().slice(0, 8)}`)];
    const warm = randomUUID();
    await ds.transaction((tx) => store.intake.accept(tx, [change('old', warm, 'MessageSent', url)]));
    await eventually(async () => (scripted.posted.some((p) => p.umid === warm) ? true : undefined), 15_000, 20);

    const events: TestStatusChange[] = [];
    for (let round = 0; round < 6; round++) {
      const sent: TestStatusChange[] = [];
      for (let i = 0; i < 100; i++) sent.push(change(accounts[i % accounts.length] as string, randomUUID(), 'MessageSent', url));
      const delivered = sent.map((e) => change(e.data.accountId, e.data.umid, 'MessageDelivered', url));
      for (const batch of [sent, delivered]) {
        await producer.send(SMS_BATCH_EVENT_TOPIC, batch.map((e) => ({ key: e.streamId, value: e, headers: { 'message-type': e.type } })));
        events.push(...batch);
      }
    }
    const wanted = new Set(events.map((e) => `${e.data.umid}:${e.type === 'MessageSent' ? 'sent' : 'delivered'}`));
    const posted = () => scripted.posted.filter((p) => wanted.has(`${p.umid}:${p.state}`));
    await eventually(async () => (new Set(posted().map((p) => `${p.umid}:${p.state}`)).size === wanted.size ? true : undefined), 60_000, 50);

    // Failures were injected, and nothing was posted twice or left behind.
    expect(failures).toBeGreaterThan(0);
    await new Promise((r) => setTimeout(r, 500));
    const counts = new Map<string, number>();
    for (const p of posted()) counts.set(`${p.umid}:${p.state}`, (counts.get(`${p.umid}:${p.state}`) ?? 0) + 1);
    expect([...counts.values()].filter((n) => n !== 1)).toEqual([]);
    expect(await ds.query(`SELECT count(*)::int AS n FROM "${schema}".deliveries WHERE state = 'pending'`)).toEqual([{ n: 0 }]);
    for (const accountId of accounts.slice(1)) expect(await secretEvents(accountId)).toBe(1);
    // Every one is recorded as handled (a delivery row, or a direct success): what the final-status reconciliation counts on.
    const handled = await eventually(async () => {
      const [row] = (await ds.query(`SELECT count(*)::int AS n FROM "${schema}".processed_messages WHERE consumer = 'sms-batch-events' AND message_id = ANY($1::text[])`, [
        events.map((e) => e.eventId),
      ])) as { n: number }[];
      return row?.n === events.length ? row.n : undefined;
    }, 10_000);
    expect(handled).toBe(events.length);

    // The group's committed offsets reach the topic's end.
    await committedToEnd(connection, INTAKE_GROUP, connection.topic(SMS_BATCH_EVENT_TOPIC));
  });
});
