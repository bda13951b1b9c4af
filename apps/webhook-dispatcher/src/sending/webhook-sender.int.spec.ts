import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { eventually, testLogger, uniqueName } from '@seed/platform-testing';
import type { AttemptOutcome, SourceEvent } from '@seed/webhook-dispatcher-domain';
import type { DeliveryIntake } from '../intake/delivery-intake';
import type { DeliveryStore } from './delivery-store';
import { closeTestDeliveryStore, openTestDeliveryStore, scriptedClient } from './sender.test-helpers';
import { WebhookSender, type SenderOptions } from './webhook-sender';

/**
 * The sender's endpoint isolation against the real queue, with a scripted HTTP client standing in
 * for the network (so that an endpoint can fail, hang, or be refused by the address guard at will).
 */
const schema = uniqueName('it_webhook_sender');
let ds: DataSource;
let deliveries: DeliveryStore;
let intake: DeliveryIntake;

beforeAll(async () => ({ ds, deliveries, intake } = await openTestDeliveryStore(schema)));
afterAll(() => closeTestDeliveryStore(ds, schema));

/** Schedules one `sent` change for each of `count` new messages, all to `url`. */
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
  await ds.transaction((tx) => intake.accept(tx, events));
  return umids;
}

const options = (overrides: Partial<SenderOptions>): SenderOptions => ({
  maxHeld: 50,
  endpointConcurrency: 1,
  leaseMs: 60_000,
  timeoutMs: 2000,
  idleMs: 20,
  retry: { baseDelayMs: 60_000, maxDelayMs: 60_000, maxAgeMs: 3_600_000 },
  breaker: { failureThreshold: 2, cooldownMs: 200 },
  ...overrides,
});

const failure: AttemptOutcome = { kind: 'failure', statusCode: 503, timedOut: false, error: 'HTTP 503' };

describe('webhook sender', () => {
  it('a probe refused by the address guard does not leave the endpoint half-open for good', async () => {
    const url = `http://flaky-${randomUUID()}.example:8080/dlr`;
    // Two failures open the breaker; the probe after the cool-down is refused (the name now
    // resolves to a private address); the endpoint must still be tried again afterwards.
    const { posted, client } = scriptedClient(async (_posted, call) =>
      call <= 2 ? failure : call === 3 ? { kind: 'refused', reason: 'flaky resolves to 10.0.0.1 is a private address' } : { kind: 'success', statusCode: 200 },
    );
    const sender = new WebhookSender(deliveries, client, async (ids) => new Map(ids.map((id) => [id, ['whsec_test']])), testLogger(), options({}));
    const umids = await schedule(url, 4);
    sender.start();
    try {
      await eventually(async () => (posted.length >= 4 ? true : undefined), 10_000);
      await eventually(async () => {
        const rows: unknown[] = await ds.query(`SELECT 1 FROM "${schema}".deliveries WHERE umid = ANY($1::text[]) AND state = 'delivered'`, [umids]);
        return rows.length > 0 ? true : undefined;
      }, 10_000);
    } finally {
      await sender.stop();
    }
  });

  it('a slow endpoint with a backlog larger than the sender holds does not take the room of others', async () => {
    const slowUrl = `http://slow-${randomUUID()}.example/dlr`;
    const fastUrl = `http://fast-${randomUUID()}.example/dlr`;
    // The slow endpoint answers 200 after 1.5 s: never failing, so its breaker stays closed.
    const { posted, client } = scriptedClient(async ({ url }) => {
      if (url === slowUrl) await new Promise((r) => setTimeout(r, 1500));
      return { kind: 'success', statusCode: 200 };
    });
    const sender = new WebhookSender(deliveries, client, async (ids) => new Map(ids.map((id) => [id, ['whsec_test']])), testLogger(), options({ maxHeld: 8, endpointConcurrency: 2 }));
    await schedule(slowUrl, 20); // due first: the oldest in the queue
    const [fastUmid] = await schedule(fastUrl, 1);
    const started = Date.now();
    sender.start();
    try {
      await eventually(async () => (posted.some((p) => p.umid === fastUmid) ? true : undefined), 10_000, 10);
      expect(Date.now() - started).toBeLessThan(1000);
      expect(posted.filter((p) => p.url === slowUrl).length).toBeLessThanOrEqual(2);
    } finally {
      await sender.stop();
    }
  });

  it('dead-letters a dead endpoint’s backlog when its retry window passes, not one per breaker probe', async () => {
    const url = `http://dead-${randomUUID()}.example/dlr`;
    const { posted, client } = scriptedClient(async () => failure);
    const sender = new WebhookSender(
      deliveries,
      client,
      async (ids) => new Map(ids.map((id) => [id, ['whsec_test']])),
      testLogger(),
      options({ retry: { baseDelayMs: 50, maxDelayMs: 100, maxAgeMs: 500 }, breaker: { failureThreshold: 1, cooldownMs: 1000 }, sweepMs: 200 }),
    );
    const umids = await schedule(url, 30);
    sender.start();
    try {
      // One probe per cool-down (1 s) would take 30 s; the sweep ends them once the window (0.5 s) passed.
      const dead = await eventually(async () => {
        const rows: { attempts: number }[] = await ds.query(`SELECT attempts FROM "${schema}".deliveries WHERE umid = ANY($1::text[]) AND state = 'dead'`, [umids]);
        return rows.length === umids.length ? rows : undefined;
      }, 4000);
      expect(dead.filter((r) => r.attempts === 0).length).toBeGreaterThan(0);
      expect(posted.length).toBeLessThan(umids.length);
    } finally {
      await sender.stop();
    }
  });
});
