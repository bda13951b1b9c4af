import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { EventStore, eventStoreSchema, runMigrations } from '@seed/platform-event-store';
import { ServiceSchema } from '@seed/platform-nest';
import { parseKeyring } from '@seed/platform-secrets';
import { dropSchema, openTestDataSource, testKeyring, testLogger, uniqueName } from '@seed/platform-testing';
import type { SourceEvent } from '@seed/webhook-dispatcher-domain';
import { AccountWebhooksStore, SecretSealer } from '../accounts/account-webhooks.store';
import { DeliveryIntake } from '../intake/delivery-intake';
import { webhookMigrations } from '../webhook.migrations';
import type { ClaimedDelivery, HoldOffer } from './claimed-delivery';
import { DeliveryStore } from './delivery-store';

/**
 * The delivery queue's head-of-line rule against the real database: only the earliest pending
 * change of a message is ever claimable, whatever else waits, and the claim shares a batch between
 * endpoints without reading a broken endpoint's backlog.
 */
const schema = uniqueName('it_delivery_queue');
let ds: DataSource;
let deliveries: DeliveryStore;
let intake: DeliveryIntake;
const LEASE = 60_000;

beforeAll(async () => {
  ds = await openTestDataSource(4);
  await runMigrations(ds, schema, [...eventStoreSchema, ...webhookMigrations]);
  const store = new EventStore(schema);
  deliveries = new DeliveryStore(ds, store, new ServiceSchema(schema));
  intake = new DeliveryIntake(deliveries, new AccountWebhooksStore(store, new ServiceSchema(schema)), new SecretSealer(parseKeyring(testKeyring())), new ServiceSchema(schema), testLogger());
});

afterAll(async () => {
  await dropSchema(ds, schema);
  await ds.destroy();
});

afterEach(async () => {
  await ds.query(`DELETE FROM "${schema}".deliveries`);
});

function change(umid: string, type: 'MessageSent' | 'MessageDelivered', url: string): SourceEvent {
  return {
    eventId: randomUUID(),
    type,
    streamId: `sms-message-${umid}`,
    streamPosition: type === 'MessageSent' ? 2 : 3,
    occurredAt: new Date().toISOString(),
    data: { umid, batchId: randomUUID(), clientBatchId: null, clientMessageId: null, accountId: 'acme', subAccountId: 'acme_hq', destination: '447911123456', source: null, smsCount: 1, dlrCallbackUrl: url },
  };
}

const accept = (events: SourceEvent[]) => ds.transaction((tx) => intake.accept(tx, events));
const succeed = (deliveryIds: string[], offer?: HoldOffer) => {
  const at = new Date().toISOString();
  return deliveries.decide(
    deliveryIds.map((deliveryId) => ({ type: 'RecordOutcome' as const, deliveryId, outcome: { kind: 'success' as const, statusCode: 200 }, at, random: 0.5, policy: { baseDelayMs: 1000, maxDelayMs: 60_000, maxAgeMs: 86_400_000 } })),
    at,
    {},
    offer,
  );
};
const stateOf = (claimed: { body: string }[]) => claimed.map((c) => (JSON.parse(c.body) as { payload: { status: { state: string } } }).payload.status.state);

describe('delivery queue', () => {
  it('offers a message’s later change only once its earlier one ended, across intake chunks', async () => {
    const umid = randomUUID();
    await accept([change(umid, 'MessageSent', 'http://a.example/dlr')]);
    await accept([change(umid, 'MessageDelivered', 'http://a.example/dlr')]);
    const first = await deliveries.claim(100, LEASE, []);
    expect(stateOf(first)).toEqual(['sent']);
    expect(await deliveries.claim(100, LEASE, [])).toEqual([]);
    await succeed(first.map((c) => c.deliveryId));
    expect(stateOf(await deliveries.claim(100, LEASE, []))).toEqual(['delivered']);
  });

  it('shares one claim between endpoints and never takes an excluded endpoint’s backlog', async () => {
    const down = Array.from({ length: 300 }, () => change(randomUUID(), 'MessageSent', 'http://down.example/dlr'));
    const up = Array.from({ length: 30 }, () => change(randomUUID(), 'MessageSent', 'http://up.example/dlr'));
    await accept([...down, ...up]);
    const both = await deliveries.claim(40, LEASE, []);
    expect(both).toHaveLength(40);
    expect(both.filter((c) => c.origin === 'http://up.example').length).toBe(20);
    const onlyUp = await deliveries.claim(100, LEASE, ['http://down.example']);
    expect(onlyUp.map((c) => c.origin)).toEqual(Array(10).fill('http://up.example'));
  });

  it('takes up an endpoint’s waiting line: two per slot by default, the sender’s line per slot when it gives one, less what it holds', async () => {
    await accept(Array.from({ length: 100 }, () => change(randomUUID(), 'MessageSent', 'http://fast.example/dlr')));
    const ask = { limit: 500, leaseMs: LEASE, excluded: [], holder: 'replica-a', concurrency: 4 };
    const first = await deliveries.claimFor({ ...ask, endpoints: new Map() });
    expect(first.deliveries).toHaveLength(8);
    expect(first.endpoints).toEqual([expect.objectContaining({ origin: 'http://fast.example', slots: 4 })]);
    const deeper = await deliveries.claimFor({ ...ask, endpoints: new Map([['http://fast.example', { held: 8, keep: 4, line: 8 }]]) });
    expect(deeper.deliveries).toHaveLength(8 * 4 - 8);
    const full = await deliveries.claimFor({ ...ask, endpoints: new Map([['http://fast.example', { held: 32, keep: 4, line: 8 }]]) });
    expect(full.deliveries).toEqual([]);
  });

  it('the sweep finds a change left waiting behind nothing, going through the queue in bounded slices', async () => {
    const umids = Array.from({ length: 25 }, () => randomUUID());
    await accept(umids.map((u) => change(u, 'MessageSent', 'http://a.example/dlr')));
    await accept(umids.map((u) => change(u, 'MessageDelivered', 'http://a.example/dlr')));
    // Simulate a lost release: one message's `sent` vanished, its `delivered` still waits.
    const lost = umids[17] as string;
    await ds.query(`UPDATE "${schema}".deliveries SET state = 'delivered' WHERE umid = $1 AND sequence = 2`, [lost]);
    let cursor = '';
    let released = 0;
    let slices = 0;
    do {
      const slice = await deliveries.releaseStranded(cursor, 10);
      released += slice.released;
      cursor = slice.next;
      slices++;
    } while (cursor !== '' && slices < 20);
    expect(released).toBe(1);
    expect(slices).toBeGreaterThan(1);
    const claimed = await deliveries.claim(100, LEASE, []);
    expect(claimed.filter((c) => c.body.includes(lost)).map((c) => stateOf([c])[0])).toEqual(['delivered']);
    expect(stateOf(claimed).filter((s) => s === 'delivered')).toHaveLength(1);
  });

  it('hands fresh deliveries to the offer leased, never a change that waits behind an earlier one', async () => {
    const umid = randomUUID();
    const other = randomUUID();
    const taken: string[] = [];
    const offer: HoldOffer = { leaseMs: LEASE, take: (origin) => (taken.push(origin), true) };
    const held: ClaimedDelivery[] = [];
    await ds.transaction((tx) => intake.accept(tx, [change(umid, 'MessageSent', 'http://a.example/dlr'), change(umid, 'MessageDelivered', 'http://a.example/dlr'), change(other, 'MessageSent', 'http://b.example/dlr')], new Date(), offer, held));
    expect(stateOf(held)).toEqual(['sent', 'sent']);
    expect(held.map((h) => h.origin).sort()).toEqual(['http://a.example', 'http://b.example']);
    // Leased to the offer: no claim sees them, and the waiting `delivered` is not due.
    expect(await deliveries.claim(100, LEASE, [])).toEqual([]);
    // Its `sent` succeeds: the `delivered` goes to the offer of that decision, leased too.
    const { held: next } = await succeed(held.filter((h) => h.body.includes(umid)).map((h) => h.deliveryId), offer);
    expect(stateOf(next)).toEqual(['delivered']);
    expect(await deliveries.claim(100, LEASE, [])).toEqual([]);
  });

  it('what the offer declines stays due for the claim', async () => {
    const held: ClaimedDelivery[] = [];
    await ds.transaction((tx) => intake.accept(tx, [change(randomUUID(), 'MessageSent', 'http://a.example/dlr')], new Date(), { leaseMs: LEASE, take: () => false }, held));
    expect(held).toEqual([]);
    expect(stateOf(await deliveries.claim(100, LEASE, []))).toEqual(['sent']);
  });

  it('a due row below the floor of the last claim (a late commit) is still claimed, at the next full scan', async () => {
    await accept([change(randomUUID(), 'MessageSent', 'http://late.example/dlr')]);
    expect(await deliveries.claim(10, LEASE, [])).toHaveLength(1);
    const late = randomUUID();
    await accept([change(late, 'MessageSent', 'http://late.example/dlr')]);
    await ds.query(`UPDATE "${schema}".deliveries SET next_attempt_at = now() - interval '1 minute' WHERE umid = $1`, [late]);
    const seen: string[] = [];
    const deadline = Date.now() + 3000;
    while (seen.length === 0 && Date.now() < deadline) {
      seen.push(...(await deliveries.claim(10, LEASE, [])).map((c) => c.body));
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(seen.filter((b) => b.includes(late))).toHaveLength(1);
  });

  it('a replica whose lease ran out can neither hand back nor record over the claim that holds it now', async () => {
    await accept([change(randomUUID(), 'MessageSent', 'http://fenced.example/dlr')]);
    const stalled = new DeliveryStore(ds, new EventStore(schema), new ServiceSchema(schema));
    const [first] = await stalled.claim(10, 100);
    await new Promise((r) => setTimeout(r, 150));
    const [second] = await deliveries.claim(10, LEASE);
    const id = first?.deliveryId as string;
    expect(second?.deliveryId).toBe(id);
    expect(second?.leaseToken).not.toBe(first?.leaseToken);
    // The stalled replica comes back: its hand-back and its outcome leave the new claim alone.
    await stalled.release([{ deliveryId: id, leaseToken: first?.leaseToken as string, dueAt: null }]);
    expect(await deliveries.claim(10, LEASE)).toEqual([]);
    const at = new Date().toISOString();
    const outcome = { type: 'RecordOutcome' as const, deliveryId: id, outcome: { kind: 'failure' as const, statusCode: 503, timedOut: false, error: 'HTTP 503' }, at, random: 0, policy: { baseDelayMs: 1, maxDelayMs: 1, maxAgeMs: 86_400_000 } };
    expect(await stalled.decide([outcome], at, { leaseTokens: new Map([[id, first?.leaseToken as string]]) })).toMatchObject({ decided: [], fenced: [id] });
    expect(await deliveries.claim(10, LEASE)).toEqual([]);
    expect(await deliveries.decide([outcome], at, { leaseTokens: new Map([[id, second?.leaseToken as string]]) })).toMatchObject({ decided: [id], fenced: [] });
  });

  it('a claim handed back ends there: its token hands back nothing more and records nothing', async () => {
    await accept([change(randomUUID(), 'MessageSent', 'http://handed-back.example/dlr')]);
    const [held] = await deliveries.claim(10, LEASE);
    const id = held?.deliveryId as string;
    // One token type for both queues: a bigint from the queue's sequence.
    expect(held?.leaseToken).toMatch(/^\d+$/);
    await deliveries.release([{ deliveryId: id, leaseToken: held?.leaseToken as string, dueAt: new Date(Date.now() + LEASE) }]);
    // A second hand-back under the same token would make it due now: it is not held any more.
    await deliveries.release([{ deliveryId: id, leaseToken: held?.leaseToken as string, dueAt: null }]);
    expect(await deliveries.claim(10, LEASE)).toEqual([]);
    const at = new Date().toISOString();
    const outcome = { type: 'RecordOutcome' as const, deliveryId: id, outcome: { kind: 'success' as const, statusCode: 200 }, at, random: 0.5, policy: { baseDelayMs: 1000, maxDelayMs: 60_000, maxAgeMs: 86_400_000 } };
    expect(await deliveries.decide([outcome], at, { leaseTokens: new Map([[id, held?.leaseToken as string]]) })).toMatchObject({ decided: [], fenced: [id] });
  });

  it('two replicas taking up the same events at once (a partition moving between them) schedule each change once', async () => {
    const other = new DeliveryIntake(
      new DeliveryStore(ds, new EventStore(schema), new ServiceSchema(schema)),
      new AccountWebhooksStore(new EventStore(schema), new ServiceSchema(schema)),
      new SecretSealer(parseKeyring(testKeyring())),
      new ServiceSchema(schema),
      testLogger(),
    );
    const events = Array.from({ length: 50 }, () => change(randomUUID(), 'MessageSent', 'http://twice.example/dlr'));
    const counts = await Promise.all([accept(events), ds.transaction((tx) => other.accept(tx, events))]);
    expect(counts[0] + counts[1]).toBe(50);
    const [row] = await ds.query(`SELECT count(*)::int AS n FROM "${schema}".deliveries WHERE origin = 'http://twice.example'`);
    expect(row.n).toBe(50);
  });

  it('a re-driven change goes first again: later changes of its message wait behind it', async () => {
    const umid = randomUUID();
    await accept([change(umid, 'MessageSent', 'http://a.example/dlr')]);
    const [sent] = await deliveries.claim(10, LEASE, []);
    const at = new Date().toISOString();
    await deliveries.decide([{ type: 'Expire', deliveryId: sent?.deliveryId as string, at, maxAgeMs: 0, detail: 'test' }], at);
    await accept([change(umid, 'MessageDelivered', 'http://a.example/dlr')]);
    await deliveries.decide([{ type: 'Redrive', deliveryId: sent?.deliveryId as string, at }], at);
    expect(stateOf(await deliveries.claim(10, LEASE, []))).toEqual(['sent']);
  });
});
