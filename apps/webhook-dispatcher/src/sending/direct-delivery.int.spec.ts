import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { eventually, testLogger, uniqueName } from '@seed/platform-testing';
import type { AttemptOutcome, SourceEvent } from '@seed/webhook-dispatcher-domain';
import { deliveryIdOf, type DeliveryIntake, type DirectHandOver } from '../intake/delivery-intake';
import type { DeliveryStore } from './delivery-store';
import type { DirectWriteDown } from './direct-write-down';
import type { DirectDelivery } from './direct-delivery';
import { closeTestDeliveryStore, openTestDeliveryStore, scriptedClient, type Posted } from './sender.test-helpers';
import { WebhookSender, type SenderOptions } from './webhook-sender';

/**
 * First attempts straight from the intake, against the real queue: nothing written when they
 * succeed, written down (and then retried in order) when they fail or take too long, and never
 * settled before one of the two. A scripted HTTP client stands in for the network.
 */
const schema = uniqueName('it_webhook_direct');
const ACCOUNT = 'acme';
let ds: DataSource;
let deliveries: DeliveryStore;
let intake: DeliveryIntake;
let directWrites: DirectWriteDown;

beforeAll(async () => ({ ds, deliveries, intake, directWrites } = await openTestDeliveryStore(schema)));
afterAll(() => closeTestDeliveryStore(ds, schema));

const change = (umid: string, type: 'MessageSent' | 'MessageDelivered', url: string): SourceEvent => ({
  eventId: randomUUID(),
  type,
  streamId: `sms-message-${umid}`,
  streamPosition: type === 'MessageSent' ? 2 : 3,
  occurredAt: new Date().toISOString(),
  data: { umid, batchId: randomUUID(), clientBatchId: null, clientMessageId: null, accountId: ACCOUNT, subAccountId: 'acme_hq', destination: '447911123456', source: null, smsCount: 1, dlrCallbackUrl: url, carrierMessageIds: ['1'], sentAt: new Date().toISOString(), deliveredAt: new Date().toISOString() },
});

const options = (overrides: Partial<SenderOptions> = {}): SenderOptions => ({
  maxHeld: 50,
  endpointConcurrency: 4,
  leaseMs: 60_000,
  timeoutMs: 2000,
  idleMs: 20,
  retry: { baseDelayMs: 20, maxDelayMs: 20, maxAgeMs: 3_600_000 },
  breaker: { failureThreshold: 5, cooldownMs: 200 },
  writeDown: (items, leaseMs) => ds.transaction((tx) => directWrites.writeDown(tx, items, leaseMs)),
  ...overrides,
});

const rowsOf = async (umids: string[]) =>
  (await ds.query(`SELECT umid, sequence, state, attempts, lease_until IS NOT NULL AS leased FROM "${schema}".deliveries WHERE umid = ANY($1) ORDER BY umid, sequence`, [umids])) as {
    umid: string;
    sequence: number;
    state: string;
    attempts: number;
    leased: boolean;
  }[];

/**
 * A sender that holds slots of `url`'s endpoint: one ordinary delivery, scheduled and claimed, is
 * kept in flight (its answer waits for `release`), as a busy endpoint's would be.
 */
async function warmSender(url: string, answer: (p: Posted, call: number) => Promise<AttemptOutcome>, overrides: Partial<SenderOptions> = {}) {
  const warmUmid = randomUUID();
  let release: () => void = () => undefined;
  const gate = new Promise<void>((r) => (release = r));
  const scripted = scriptedClient(async (p, call) => {
    if (p.umid === warmUmid) {
      await gate;
      return { kind: 'success', statusCode: 200 };
    }
    return answer(p, call);
  });
  const sender = new WebhookSender(deliveries, scripted.client, async (ids) => new Map(ids.map((id) => [id, ['whsec_test']])), testLogger(), options(overrides));
  await ds.transaction((tx) => intake.accept(tx, [change(warmUmid, 'MessageSent', url)]));
  sender.start();
  await eventually(async () => (scripted.posted.some((p) => p.umid === warmUmid) ? true : undefined), 10_000, 10);
  const posted = () => scripted.posted.filter((p) => p.umid !== warmUmid);
  return { sender, posted, release };
}

/** The intake's transaction with the sender's direct offer: what it took without a row. */
async function acceptDirect(sender: WebhookSender, events: SourceEvent[]): Promise<{ scheduled: number; direct: DirectDelivery[] }> {
  const offer = sender.directOffer();
  if (!offer) throw new Error('the sender offers no direct deliveries');
  const direct: DirectHandOver = { offer, taken: [] };
  const scheduled = await ds.transaction((tx) => intake.accept(tx, events, new Date(), undefined, undefined, direct));
  return { scheduled, direct: direct.taken };
}

describe('direct deliveries', () => {
  it('sends a message’s changes one after the other without writing a row, settles once they succeeded, and drops a repeat of their events', async () => {
    const url = `http://direct-${randomUUID()}.example/dlr`;
    const { sender, posted, release } = await warmSender(url, async () => ({ kind: 'success', statusCode: 200 }));
    try {
      const [a, b] = [randomUUID(), randomUUID()];
      const events = [change(a, 'MessageSent', url), change(b, 'MessageSent', url), change(a, 'MessageDelivered', url)];
      const { scheduled, direct } = await acceptDirect(sender, events);
      expect(scheduled).toBe(0);
      expect(direct).toHaveLength(3);
      await sender.sendDirect(direct);
      // Settled only once every one of them was posted and answered.
      expect(posted().map((p) => `${p.umid}:${p.state}`).sort()).toEqual([`${a}:delivered`, `${a}:sent`, `${b}:sent`].sort());
      const ofA = posted().filter((p) => p.umid === a);
      expect(ofA.map((p) => p.state)).toEqual(['sent', 'delivered']);
      expect(await rowsOf([a, b])).toEqual([]);
      // The topic carrying them again (the relay publishes at least once): neither posted nor scheduled.
      expect(await acceptDirect(sender, events)).toEqual({ scheduled: 0, direct: [] });
      expect(posted()).toHaveLength(3);
      expect(await rowsOf([a, b])).toEqual([]);
    } finally {
      release();
      await sender.stop();
    }
  });

  it('writes a failed first attempt down with the later change behind it: retried, then both in order, and a redelivered event is not sent again', async () => {
    const url = `http://failing-${randomUUID()}.example/dlr`;
    const umid = randomUUID();
    let failedOnce = false;
    const { sender, posted, release } = await warmSender(url, async (p) => {
      if (p.umid === umid && p.state === 'sent' && !failedOnce) {
        failedOnce = true;
        return { kind: 'failure', statusCode: 503, timedOut: false, error: 'HTTP 503' };
      }
      return { kind: 'success', statusCode: 200 };
    });
    try {
      const events = [change(umid, 'MessageSent', url), change(umid, 'MessageDelivered', url)];
      const { direct } = await acceptDirect(sender, events);
      expect(direct).toHaveLength(2);
      await sender.sendDirect(direct);
      // Settled by being written down: both rows exist, the `delivered` one waiting behind the `sent`.
      const written = await rowsOf([umid]);
      expect(written.map((r) => r.sequence)).toEqual([2, 3]);
      expect(posted().filter((p) => p.umid === umid).map((p) => p.state)).toEqual(['sent']);
      // Retried by the queue, in order, with the delivery ids the first attempt carried.
      await eventually(async () => ((await rowsOf([umid])).every((r) => r.state === 'delivered') ? true : undefined), 10_000, 20);
      const ofMessage = posted().filter((p) => p.umid === umid);
      expect(ofMessage.map((p) => p.state)).toEqual(['sent', 'sent', 'delivered']);
      expect(ofMessage[0]?.deliveryId).toBe(deliveryIdOf(events[0]?.eventId as string));
      expect(ofMessage[1]?.deliveryId).toBe(ofMessage[0]?.deliveryId);
      expect((await rowsOf([umid])).map((r) => r.attempts)).toEqual([2, 1]);
      // The same events again (a partition handled twice): recognised, neither sent nor scheduled.
      const again = await acceptDirect(sender, events);
      expect(again).toEqual({ scheduled: 0, direct: [] });
      expect(await rowsOf([umid])).toHaveLength(2);
    } finally {
      release();
      await sender.stop();
    }
  });

  it('writes down what a slow endpoint has not answered in time, the request in flight leased to the sender, and records its answer', async () => {
    const url = `http://slow-${randomUUID()}.example/dlr`;
    const [first, second] = [randomUUID(), randomUUID()];
    let answer: () => void = () => undefined;
    const answered = new Promise<void>((r) => (answer = r));
    const { sender, posted, release } = await warmSender(
      url,
      async (p) => {
        if (p.umid === first) await answered;
        return { kind: 'success', statusCode: 200 };
      },
      { endpointConcurrency: 2, directWaitMs: 300 },
    );
    try {
      // Two slots: the warm-up delivery holds one, `first` takes the other and hangs, `second` waits for a slot.
      const { direct } = await acceptDirect(sender, [change(first, 'MessageSent', url), change(second, 'MessageSent', url)]);
      expect(direct).toHaveLength(2);
      const started = Date.now();
      await sender.sendDirect(direct);
      expect(Date.now() - started).toBeLessThan(2000);
      const written = await rowsOf([first, second]);
      expect(written.map((r) => [r.umid, r.state, r.leased])).toEqual(
        [
          [first, 'pending', true],
          [second, 'pending', false],
        ].sort((x, y) => String(x[0]).localeCompare(String(y[0]))),
      );
      answer();
      release();
      await eventually(async () => ((await rowsOf([first, second])).every((r) => r.state === 'delivered') ? true : undefined), 10_000, 20);
      expect(posted().filter((p) => p.umid === first)).toHaveLength(1);
      expect(posted().filter((p) => p.umid === second)).toHaveLength(1);
    } finally {
      answer();
      release();
      await sender.stop();
    }
  });
});
