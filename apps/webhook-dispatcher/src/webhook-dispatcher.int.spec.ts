import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DataSource } from 'typeorm';
import { EventStore, eventStoreSchema, runMigrations } from '@seed/platform-event-store';
import { ServiceSchema } from '@seed/platform-nest';
import { parseKeyring } from '@seed/platform-secrets';
import { dropSchema, eventually, openTestDataSource, testKeyring, testLogger, uniqueName } from '@seed/platform-testing';
import type { MessageRef } from '@seed/sms-batch-contracts';
import { parseAllowedHosts, verifySignature, type SourceEvent } from '@seed/webhook-dispatcher-domain';
import { AccountWebhooksStore, SecretSealer } from './accounts/account-webhooks.store';
import { DeliveryIntake } from './intake/delivery-intake';
import { DeliveryStore } from './sending/delivery-store';
import { WebhookHttpClient } from './sending/webhook-http-client';
import { WebhookSender } from './sending/webhook-sender';
import { webhookMigrations } from './webhook.migrations';
import { signingSecretsAt } from '@seed/webhook-dispatcher-domain';

const schema = uniqueName('it_webhooks');
const store = new EventStore(schema);
const sealer = new SecretSealer(parseKeyring(testKeyring()));
let ds: DataSource;
let deliveries: DeliveryStore;
let accounts: AccountWebhooksStore;
let intake: DeliveryIntake;

beforeAll(async () => {
  ds = await openTestDataSource(4);
  await runMigrations(ds, schema, [...eventStoreSchema, ...webhookMigrations]);
  deliveries = new DeliveryStore(ds, store, new ServiceSchema(schema));
  accounts = new AccountWebhooksStore(store, new ServiceSchema(schema));
  intake = new DeliveryIntake(deliveries, accounts, sealer, new ServiceSchema(schema), testLogger());
});

afterAll(async () => {
  await dropSchema(ds, schema);
  await ds.destroy();
});

const ref = (overrides: Partial<MessageRef> = {}): MessageRef => ({
  umid: randomUUID(),
  batchId: randomUUID(),
  clientBatchId: null,
  clientMessageId: 'c-1',
  accountId: `acct_${randomUUID().slice(0, 8)}`,
  subAccountId: 'acme_hq',
  destination: '447911123456',
  source: 'ACME',
  smsCount: 1,
  dlrCallbackUrl: 'http://127.0.0.1:9/dlr',
  ...overrides,
});
const event = (type: string, r: MessageRef, streamPosition: number): SourceEvent => ({
  eventId: randomUUID(),
  type,
  streamId: `sms-message-${r.umid}`,
  streamPosition,
  occurredAt: new Date().toISOString(),
  data: r,
});
const rowsOf = (umid: string) =>
  ds.query(`SELECT delivery_id, sequence, state, attempts, url FROM "${schema}".deliveries WHERE umid = $1 ORDER BY sequence`, [umid]) as Promise<
    { delivery_id: string; sequence: number; state: string; attempts: number; url: string }[]
  >;

describe('intake', () => {
  it('schedules one delivery per status change with a target, once, and gives the account a secret', async () => {
    const r = ref();
    const events = [event('MessageQueued', r, 1), event('MessageSent', r, 2), event('MessageDelivered', r, 3)];
    expect(await ds.transaction((tx) => intake.accept(tx, events))).toBe(2);
    expect(await ds.transaction((tx) => intake.accept(tx, events))).toBe(0); // redelivered: nothing new
    expect(await rowsOf(r.umid)).toMatchObject([
      { sequence: 2, state: 'pending', url: 'http://127.0.0.1:9/dlr' },
      { sequence: 3, state: 'pending' },
    ]);
    const account = (await accounts.load(ds.manager, [r.accountId], false)).get(r.accountId);
    expect(account?.state.sealedSecret).toMatch(/^sealed\.v1\./);
    const stream = await store.readStream(ds.manager, `webhook-account-${r.accountId}`);
    expect(stream.map((e) => [e.type, (e.data as { reason: string }).reason])).toEqual([['SigningSecretIssued', 'first-delivery']]);
    expect(JSON.stringify(stream)).not.toContain(sealer.open(account?.state.sealedSecret as string));
  });

  it('uses the account default when the message has no URL, and schedules nothing without either', async () => {
    const withDefault = ref({ dlrCallbackUrl: null });
    const loaded = (await accounts.load(ds.manager, [withDefault.accountId])).get(withDefault.accountId);
    await ds.transaction((tx) =>
      accounts.apply(tx, withDefault.accountId, loaded!, [{ type: 'AccountWebhookSet', schemaVersion: 1, data: { accountId: withDefault.accountId, dlrCallbackUrl: 'https://hooks.example.com/a', setAt: new Date().toISOString() } }], {
        correlationId: 't',
        causationId: null,
        occurredAt: new Date().toISOString(),
      }),
    );
    const none = ref({ dlrCallbackUrl: null });
    const noneEvent = event('MessageSent', none, 2);
    await ds.transaction((tx) => intake.accept(tx, [event('MessageSent', withDefault, 2), noneEvent]));
    expect(await rowsOf(withDefault.umid)).toMatchObject([{ url: 'https://hooks.example.com/a' }]);
    expect(await rowsOf(none.umid)).toEqual([]);
    // A status change with nowhere to go leaves no trace (installations without webhooks pay nothing).
    const processed: { n: number }[] = await ds.query(`SELECT count(*)::int AS n FROM "${schema}".processed_messages WHERE message_id = $1`, [noneEvent.eventId]);
    expect(processed[0]?.n).toBe(0);
  });
});

describe('queue', () => {
  it('holds a message back while an earlier change of it is pending, and never hands one out twice', async () => {
    const r = ref({ dlrCallbackUrl: `http://queue-${randomUUID()}.example/` });
    await ds.transaction((tx) => intake.accept(tx, [event('MessageSent', r, 2), event('MessageDelivered', r, 3)]));
    const mine = async () => (await deliveries.claim(10_000, 60_000, [])).filter((d) => d.url === r.dlrCallbackUrl);
    const first = await mine();
    expect(first).toHaveLength(1);
    const [sent, delivered] = await rowsOf(r.umid);
    expect(first[0]?.deliveryId).toBe(sent?.delivery_id);
    expect(await mine()).toEqual([]); // leased, and `delivered` waits for `sent`

    const at = new Date().toISOString();
    const policy = { baseDelayMs: 60_000, maxDelayMs: 60_000, maxAgeMs: 3_600_000 };
    await deliveries.decide([{ type: 'RecordOutcome', deliveryId: sent!.delivery_id, outcome: { kind: 'failure', statusCode: 500, timedOut: false, error: 'HTTP 500' }, at, random: 0.99, policy }], at);
    expect(await mine()).toEqual([]); // `sent` waits for its retry, `delivered` still behind it
    expect(await rowsOf(r.umid)).toMatchObject([{ state: 'pending', attempts: 1 }, { state: 'pending', attempts: 0 }]);

    await deliveries.decide([{ type: 'RecordOutcome', deliveryId: sent!.delivery_id, outcome: { kind: 'success', statusCode: 200 }, at, random: 0, policy }], at);
    const next = await mine();
    expect(next.map((d) => d.deliveryId)).toEqual([delivered?.delivery_id]);
    const events = await store.readStream(ds.manager, `webhook-delivery-${sent!.delivery_id}`);
    expect(events.map((e) => e.type)).toEqual(['DeliveryScheduled', 'DeliveryAttemptFailed', 'DeliverySucceeded']);
  });

  it('skips excluded endpoints, and hands back deliveries due again later', async () => {
    const url = `http://excluded-${randomUUID()}.example/`;
    const r = ref({ dlrCallbackUrl: url });
    await ds.transaction((tx) => intake.accept(tx, [event('MessageSent', r, 2)]));
    expect((await deliveries.claim(10_000, 60_000, [new URL(url).origin])).filter((d) => d.url === url)).toEqual([]);
    const [claimed] = (await deliveries.claim(10_000, 60_000, [])).filter((d) => d.url === url);
    await deliveries.release([{ deliveryId: claimed!.deliveryId, leaseToken: claimed!.leaseToken, dueAt: new Date(Date.now() + 60_000) }]);
    expect((await deliveries.claim(10_000, 60_000, [])).filter((d) => d.url === url)).toEqual([]);
  });

  it('lists dead letters of the account only and re-drives them', async () => {
    const r = ref({ dlrCallbackUrl: `http://dead-${randomUUID()}.example/` });
    await ds.transaction((tx) => intake.accept(tx, [event('MessageSent', r, 2)]));
    const [row] = await rowsOf(r.umid);
    const at = new Date().toISOString();
    await deliveries.decide([{ type: 'RecordOutcome', deliveryId: row!.delivery_id, outcome: { kind: 'refused', reason: '10.0.0.1 is a private address' }, at, random: 0, policy: { baseDelayMs: 1, maxDelayMs: 1, maxAgeMs: 1 } }], at);
    const dead = await deliveries.deadLetters(r.accountId);
    expect(dead).toMatchObject([{ deliveryId: row!.delivery_id, umid: r.umid, attempts: 0, lastError: 'target refused: 10.0.0.1 is a private address', body: { payload: { umid: r.umid } } }]);
    expect(await deliveries.deadLetters('someone-else')).toEqual([]);
    expect((await deliveries.decide([{ type: 'Redrive', deliveryId: row!.delivery_id, at }], at, { accountId: 'someone-else' })).decided).toEqual([]);
    expect((await deliveries.decide([{ type: 'Redrive', deliveryId: row!.delivery_id, at }], at, { accountId: r.accountId })).decided).toEqual([row!.delivery_id]);
    expect(await deliveries.deadLetters(r.accountId)).toEqual([]);
    expect(await rowsOf(r.umid)).toMatchObject([{ state: 'pending', attempts: 0 }]);
  });
});

describe('sender', () => {
  let server: Server;
  let port: number;
  const received: { body: string; signature: string; deliveryId: string }[] = [];
  let failuresLeft = 0;

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        if (failuresLeft > 0) {
          failuresLeft--;
          res.writeHead(503).end();
          return;
        }
        received.push({ body, signature: String(req.headers['x-seed-signature']), deliveryId: String(req.headers['x-seed-delivery-id']) });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it('delivers a message’s changes in order, signed with the account secret, retrying failures', async () => {
    const sender = new WebhookSender(
      deliveries,
      new WebhookHttpClient({ timeoutMs: 2000, allowedHosts: parseAllowedHosts('127.0.0.1'), socketsPerEndpoint: 4 }),
      async (ids) => {
        const loaded = await accounts.load(ds.manager, ids, false);
        return new Map([...loaded].map(([id, a]) => [id, signingSecretsAt(a.state, Date.now()).map((s) => sealer.open(s))]));
      },
      testLogger(),
      { maxHeld: 50, endpointConcurrency: 4, leaseMs: 60_000, timeoutMs: 2000, idleMs: 20, retry: { baseDelayMs: 50, maxDelayMs: 100, maxAgeMs: 60_000 }, breaker: { failureThreshold: 100, cooldownMs: 100 } },
    );
    const r = ref({ dlrCallbackUrl: `http://127.0.0.1:${port}/dlr` });
    failuresLeft = 2;
    await ds.transaction((tx) => intake.accept(tx, [event('MessageSent', r, 2), event('MessageDelivered', r, 3)]));
    sender.start();
    try {
      await eventually(async () => (received.filter((x) => x.body.includes(r.umid)).length === 2 ? true : undefined));
      const mine = received.filter((x) => x.body.includes(r.umid));
      expect(mine.map((x) => (JSON.parse(x.body) as { payload: { status: { state: string } } }).payload.status.state)).toEqual(['sent', 'delivered']);
      const secret = sealer.open((await accounts.load(ds.manager, [r.accountId], false)).get(r.accountId)!.state.sealedSecret!);
      for (const x of mine) expect(verifySignature(x.signature, x.body, secret, Math.floor(Date.now() / 1000))).toBe(true);
      await eventually(async () => ((await rowsOf(r.umid)).every((row) => row.state === 'delivered') ? true : undefined));
      expect((await rowsOf(r.umid))[0]?.attempts).toBe(3);
    } finally {
      await sender.stop();
    }
  });
});
