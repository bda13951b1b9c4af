import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DataSource } from 'typeorm';
import { EventStore, eventStoreSchema, runMigrations } from '@seed/platform-event-store';
import { ServiceSchema } from '@seed/platform-nest';
import { parseKeyring } from '@seed/platform-secrets';
import { dropSchema, eventually, openTestDataSource, testKeyring, testLogger, uniqueName } from '@seed/platform-testing';
import { parseAllowedHosts, type SourceEvent } from '@seed/webhook-dispatcher-domain';
import { AccountWebhooksStore, SecretSealer } from '../accounts/account-webhooks.store';
import { DeliveryIntake } from '../intake/delivery-intake';
import { webhookMigrations } from '../webhook.migrations';
import { DeliveryStore } from './delivery-store';
import { WebhookHttpClient } from './webhook-http-client';
import { WebhookSender, type SenderOptions } from './webhook-sender';

/**
 * Two dispatcher replicas (each its own connection pool, queue store and sender) over one schema,
 * sending to local HTTP receivers that count what reaches them: the endpoint's concurrency and its
 * circuit breaker hold across both, and no delivery is sent by both.
 */
const schema = uniqueName('it_webhook_replicas');
const pools: DataSource[] = [];
const stores: DeliveryStore[] = [];
let intake: DeliveryIntake;

beforeAll(async () => {
  for (let i = 0; i < 2; i++) pools.push(await openTestDataSource(4));
  const [first] = pools as [DataSource];
  await runMigrations(first, schema, [...eventStoreSchema, ...webhookMigrations]);
  for (const ds of pools) stores.push(new DeliveryStore(ds, new EventStore(schema), new ServiceSchema(schema)));
  const store = new EventStore(schema);
  intake = new DeliveryIntake(stores[0] as DeliveryStore, new AccountWebhooksStore(store, new ServiceSchema(schema)), new SecretSealer(parseKeyring(testKeyring())), new ServiceSchema(schema), testLogger());
});

afterAll(async () => {
  await dropSchema(pools[0] as DataSource, schema);
  for (const ds of pools) await ds.destroy();
});

interface Hit {
  replica: string;
  deliveryId: string;
  start: number;
  end: number | null;
}

/** A receiver on its own port (its own endpoint): answers `status` after `delayMs`, and counts what is in flight. */
async function receiver(status: number, delayMs: number) {
  const hits: Hit[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const server = createServer((req, res) => {
    const hit: Hit = { replica: String(req.headers['x-test-replica']), deliveryId: String(req.headers['x-seed-delivery-id']), start: Date.now(), end: null };
    hits.push(hit);
    maxInFlight = Math.max(maxInFlight, ++inFlight);
    req.resume();
    req.on('end', () =>
      setTimeout(() => {
        inFlight--;
        hit.end = Date.now();
        res.writeHead(status).end();
      }, delayMs),
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${origin}/dlr`,
    origin,
    hits,
    maxInFlight: () => maxInFlight,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

/** Most requests in flight at once among `hits` (from their start and end at the receiver). */
function overlap(hits: readonly Hit[]): number {
  const edges = hits.flatMap((h) => [
    { at: h.start, d: 1 },
    { at: h.end ?? Infinity, d: -1 },
  ]);
  edges.sort((a, b) => a.at - b.at || a.d - b.d);
  let now = 0;
  let max = 0;
  for (const e of edges) max = Math.max(max, (now += e.d));
  return max;
}

async function schedule(url: string, count: number): Promise<string[]> {
  const umids = Array.from({ length: count }, () => randomUUID());
  const events: SourceEvent[] = umids.map((umid) => ({
    eventId: randomUUID(),
    type: 'MessageSent',
    streamId: `sms-message-${umid}`,
    streamPosition: 2,
    occurredAt: new Date().toISOString(),
    data: { umid, batchId: randomUUID(), clientBatchId: null, clientMessageId: null, accountId: 'acme', subAccountId: 'acme_hq', destination: '447911123456', source: null, smsCount: 1, dlrCallbackUrl: url },
  }));
  await (pools[0] as DataSource).transaction((tx) => intake.accept(tx, events));
  return umids;
}

/** Replica `index` (0 or 1): its own store and pool; its requests carry its name for the receiver. */
function replica(index: number, overrides: Partial<SenderOptions>): WebhookSender {
  const options: SenderOptions = {
    maxHeld: 50,
    endpointConcurrency: 3,
    leaseMs: 60_000,
    timeoutMs: 2000,
    idleMs: 20,
    retry: { baseDelayMs: 60_000, maxDelayMs: 60_000, maxAgeMs: 3_600_000 },
    breaker: { failureThreshold: 100, cooldownMs: 1000 },
    ...overrides,
  };
  const http = new WebhookHttpClient({ timeoutMs: options.timeoutMs, allowedHosts: parseAllowedHosts('127.0.0.1'), socketsPerEndpoint: options.endpointConcurrency });
  const tagged = { post: (url: string, body: string, headers: Record<string, string>) => http.post(url, body, { ...headers, 'x-test-replica': `r${index}` }), destroy: () => http.destroy() };
  return new WebhookSender(stores[index] as DeliveryStore, tagged as unknown as WebhookHttpClient, async (ids) => new Map(ids.map((id) => [id, ['whsec_test']])), testLogger(), options);
}

const query = <T>(sql: string, params: unknown[] = []): Promise<T[]> => (pools[0] as DataSource).query(sql, params);
const delivered = async (umids: string[]) =>
  (await query<{ n: number }>(`SELECT count(*)::int AS n FROM "${schema}".deliveries WHERE umid = ANY($1::text[]) AND state = 'delivered'`, [umids]))[0]?.n ?? 0;
/** When the endpoint's breaker is open until (epoch ms, database clock), or null while closed. */
const openUntil = async (origin: string) =>
  (await query<{ at: number | null }>(`SELECT (extract(epoch FROM open_until) * 1000)::float8 AS at FROM "${schema}".delivery_endpoints WHERE origin = $1`, [origin]))[0]?.at ?? null;

describe('two dispatcher replicas', () => {
  it('never have more than the endpoint’s concurrency in flight to it between them, and never send a delivery twice', async () => {
    const endpoint = await receiver(200, 40);
    const umids = await schedule(endpoint.url, 90);
    const replicas = [replica(0, {}), replica(1, {})];
    replicas.forEach((r) => r.start());
    try {
      await eventually(async () => ((await delivered(umids)) === umids.length ? true : undefined), 20_000);
    } finally {
      await Promise.all(replicas.map((r) => r.stop()));
      await endpoint.close();
    }
    expect(endpoint.maxInFlight()).toBeLessThanOrEqual(3);
    expect(endpoint.maxInFlight()).toBeGreaterThanOrEqual(2);
    const ids = endpoint.hits.map((h) => h.deliveryId);
    expect(new Set(ids).size).toBe(umids.length);
    expect(ids).toHaveLength(umids.length);
    // Both replicas sent (the cap is shared, not held by the first one to claim)...
    expect(new Set(endpoint.hits.map((h) => h.replica))).toEqual(new Set(['r0', 'r1']));
    // ...and gave their slots back when they stopped.
    expect(await query(`SELECT slot_grants FROM "${schema}".delivery_endpoints WHERE origin = $1`, [endpoint.origin])).toEqual([{ slot_grants: {} }]);
  });

  it('an endpoint opened by failures on one replica gets nothing from the other until its cool-down, then one probe at a time', async () => {
    const endpoint = await receiver(503, 0);
    await schedule(endpoint.url, 20);
    const cooldownMs = 1500;
    const options = { endpointConcurrency: 2, breaker: { failureThreshold: 3, cooldownMs } };
    const first = replica(0, options);
    const second = replica(1, options);
    first.start();
    try {
      const opened = await eventually(() => openUntil(endpoint.origin).then((at) => at ?? undefined), 10_000, 10);
      const beforeOpen = endpoint.hits.length;
      second.start();
      await new Promise((r) => setTimeout(r, Math.max(0, opened - Date.now()) + 2.5 * cooldownMs));
      // The failures that opened it: the threshold, plus at most what was in flight (a replica
      // sends on only after its failures were recorded and the breaker still closed).
      expect(beforeOpen).toBeGreaterThanOrEqual(3);
      expect(beforeOpen).toBeLessThanOrEqual(3 + 2 - 1);
      const later = endpoint.hits.slice(beforeOpen);
      // Nothing from either replica until the cool-down ended; then probes, one at a time, each
      // failure opening it again for a cool-down.
      expect(later.length).toBeGreaterThanOrEqual(1);
      expect(later.every((h) => h.start >= opened - 5)).toBe(true);
      expect(overlap(later)).toBe(1);
      for (let i = 1; i < later.length; i++) expect((later[i] as Hit).start - ((later[i - 1] as Hit).end as number)).toBeGreaterThanOrEqual(cooldownMs - 50);
    } finally {
      await Promise.all([first.stop(), second.stop()]);
      await endpoint.close();
    }
  });

  it('both replicas sending to a slow failing endpoint: once it opened, at most one request in flight (the probe)', async () => {
    const endpoint = await receiver(503, 300);
    await schedule(endpoint.url, 40);
    const options = { endpointConcurrency: 4, breaker: { failureThreshold: 2, cooldownMs: 400 } };
    const replicas = [replica(0, options), replica(1, options)];
    replicas.forEach((r) => r.start());
    try {
      const opened = await eventually(() => openUntil(endpoint.origin).then((at) => at ?? undefined), 10_000, 10);
      await new Promise((r) => setTimeout(r, Math.max(0, opened - Date.now()) + 3000));
      // Requests that started before it opened ended before its first half-open moment (300 ms < 400 ms).
      const probes = endpoint.hits.filter((h) => h.start >= opened - 5);
      expect(probes.length).toBeGreaterThanOrEqual(3);
      expect(overlap(probes)).toBe(1);
      expect(overlap(endpoint.hits)).toBeLessThanOrEqual(4);
    } finally {
      await Promise.all(replicas.map((r) => r.stop()));
      await endpoint.close();
    }
  });

  it('keep sending through grant renewals with the shortest lease allowed (timeout + 2 s)', async () => {
    const endpoint = await receiver(200, 100);
    const umids = await schedule(endpoint.url, 30);
    const replicas = [0, 1].map((i) => replica(i, { endpointConcurrency: 1, timeoutMs: 1500, leaseMs: 3500 }));
    replicas.forEach((r) => r.start());
    try {
      await eventually(async () => ((await delivered(umids)) === umids.length ? true : undefined), 15_000);
    } finally {
      await Promise.all(replicas.map((r) => r.stop()));
      await endpoint.close();
    }
    // One at a time (100 ms each) for ~3 s, most of a lease: no pause waiting for a grant to be
    // renewed (renewed at half the lease, a grant would be too short to start a request from its
    // 1 s mark to its 1.75 s mark).
    const starts = endpoint.hits.map((h) => h.start).sort((a, b) => a - b);
    expect(Math.max(...starts.slice(1).map((at, i) => at - (starts[i] as number)))).toBeLessThan(500);
    expect(overlap(endpoint.hits)).toBe(1);
  });

  it('the slots of a replica that died come back when its lease runs out', async () => {
    const endpoint = await receiver(200, 0);
    const umids = await schedule(endpoint.url, 10);
    // A replica claims all of the endpoint's slots (and a delivery) and dies without a word.
    const died = Date.now();
    const gone = await (stores[0] as DeliveryStore).claimFor({ limit: 1, leaseMs: 1500, excluded: [], holder: 'gone', concurrency: 3, endpoints: new Map() });
    expect(gone.endpoints.find((e) => e.origin === endpoint.origin)?.slots).toBe(3);
    const survivor = replica(1, {});
    survivor.start();
    try {
      await eventually(async () => ((await delivered(umids)) === umids.length ? true : undefined), 10_000);
      expect(Math.min(...endpoint.hits.map((h) => h.start))).toBeGreaterThanOrEqual(died + 1500 - 50);
    } finally {
      await survivor.stop();
      await endpoint.close();
    }
  });
});
