import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { CommandPipeline, EventStore, ProcessedMessages } from '@seed/platform-event-store';
import { ServiceSchema } from '@seed/platform-nest';
import { dropSchema, openTestDataSource, testLogger, uniqueName } from '@seed/platform-testing';
import { decideSubmitBatch, initialBatchState } from '@seed/sms-batch-domain';
import { batchStreamId, messageStreamId, type CarrierReceipt } from '@seed/sms-batch-contracts';
import { migrateSmsBatchSchema } from '../sms-batch.test-helpers';
import { MessageLifecycleWriter } from './message-lifecycle.writer';
import { OutboundQueueProjection } from './outbound-queue.projection';
import { OutboundQueueRepository } from './outbound-queue.repository';

const schema = uniqueName('it_writer');
const store = new EventStore(schema);
let ds: DataSource;

beforeAll(async () => {
  ds = await openTestDataSource(4);
  await migrateSmsBatchSchema(ds, schema);
});

afterAll(async () => {
  await dropSchema(ds, schema);
  await ds.destroy();
});

/** No followers to wake. */
const newWriter = () => new MessageLifecycleWriter(store, new CommandPipeline(ds, store, new ProcessedMessages(schema), () => undefined), new ServiceSchema(schema), testLogger());

/** Queues messages the way SubmitBatchHandler does; returns their umids. */
async function queue(texts: string[]): Promise<string[]> {
  const batchId = randomUUID();
  const umids = texts.map(() => randomUUID());
  const decided = decideSubmitBatch(
    {
      data: {
        accountId: 'acme',
        subAccountId: 'acme_hq',
        includeMessagesInResponse: false,
        messages: texts.map((text, i) => ({ destination: `+4474001234${String(i).padStart(2, '0')}`, text })),
      },
      batchId,
      umids,
      now: new Date().toISOString(),
    },
    initialBatchState(),
  );
  await store.append(
    ds,
    [
      { streamId: batchStreamId(batchId), expectedVersion: 0, events: decided.batch },
      ...decided.messages.map((m) => ({ streamId: messageStreamId(m.umid), expectedVersion: 0, events: m.events })),
    ],
    { correlationId: randomUUID(), causationId: null, occurredAt: new Date().toISOString() },
  );
  return umids;
}

const receipt = (carrierMessageId: string, stat = 'DELIVRD'): CarrierReceipt => ({
  carrierMessageId,
  stat,
  err: '000',
  submitDate: null,
  doneDate: null,
  receivedAt: new Date().toISOString(),
});

const types = async (umid: string) => (await store.readStream(ds, messageStreamId(umid))).map((e) => e.type);
const parked = async (): Promise<number> => (await ds.query(`SELECT count(*)::int AS n FROM "${schema}".parked_receipts`))[0].n;

describe('MessageLifecycleWriter', () => {
  it('applies a receipt that arrived before its submission was recorded, once the submission is', async () => {
    const writer = newWriter();
    const [umid] = (await queue(['Hello'])) as [string];
    await writer.record({ receipt: receipt('A1B2C3') }); // the carrier was quicker than our record
    expect(await parked()).toBe(1);

    await writer.record({ umid, command: { type: 'RecordSubmission', carrierMessageIds: ['a1b2c3'], at: new Date().toISOString() } });

    expect(await types(umid)).toEqual(['MessageQueued', 'MessageSent', 'MessageDelivered']);
    expect(await parked()).toBe(0);
  });

  it('matches a receipt that quotes the id in decimal when the carrier answered the submit in hex', async () => {
    const writer = newWriter();
    const [umid] = (await queue(['Hello'])) as [string];
    await writer.record({ umid, command: { type: 'RecordSubmission', carrierMessageIds: ['1A2B3C'], at: new Date().toISOString() } });
    await writer.record({ receipt: receipt(String(0x1a2b3c)) });
    expect(await types(umid)).toEqual(['MessageQueued', 'MessageSent', 'MessageDelivered']);
  });

  it('decides the same message in one flush in order, and lets a refused item not sink the others', async () => {
    const writer = newWriter();
    const [first, second] = (await queue(['One', 'Two'])) as [string, string];
    const at = new Date().toISOString();
    await Promise.all([
      writer.record({ umid: first, command: { type: 'RecordSubmission', carrierMessageIds: ['f1'], at } }),
      writer.record({ receipt: receipt('f1') }),
      // Two ids for a one-part message: the decider refuses it; the other items still commit.
      writer.record({ umid: second, command: { type: 'RecordSubmission', carrierMessageIds: ['s1', 's2'], at } }),
    ]);
    expect(await types(first)).toEqual(['MessageQueued', 'MessageSent', 'MessageDelivered']);
    expect(await types(second)).toEqual(['MessageQueued']);
  });

  it('records a receipt for a submission it committed while a flush of submissions is still held up', async () => {
    const writer = newWriter();
    const [sent, next] = (await queue(['Sent before', 'Held up'])) as [string, string];
    await writer.record({ umid: sent, command: { type: 'RecordSubmission', carrierMessageIds: ['b1'], at: new Date().toISOString() } });
    // Another transaction holds the carrier-id row the next submission's flush must write: that flush waits.
    const blocker = ds.createQueryRunner();
    await blocker.connect();
    await blocker.startTransaction();
    await blocker.query(`INSERT INTO "${schema}".carrier_ids (carrier_key, umid) VALUES ('b2', $1)`, [next]);
    let submissionCommitted = false;
    const submission = writer
      .record({ umid: next, command: { type: 'RecordSubmission', carrierMessageIds: ['b2'], at: new Date().toISOString() } })
      .then(() => (submissionCommitted = true));
    try {
      // The carrier's receipt for the first message is answered without waiting for that flush.
      await writer.record({ receipt: receipt('b1') });
      expect(submissionCommitted).toBe(false);
      expect(await types(sent)).toEqual(['MessageQueued', 'MessageSent', 'MessageDelivered']);
    } finally {
      await blocker.rollbackTransaction();
      await blocker.release();
    }
    await submission;
    expect(await types(next)).toEqual(['MessageQueued', 'MessageSent']);
  });

  it('sweeps parked receipts whose submission another replica recorded meanwhile', async () => {
    const [umid] = (await queue(['Hello'])) as [string];
    const replicaA = newWriter();
    await replicaA.record({ umid, command: { type: 'RecordSubmission', carrierMessageIds: ['77'], at: new Date().toISOString() } });
    // As if replica B parked the receipt while A's carrier id was not yet committed.
    await ds.query(`INSERT INTO "${schema}".parked_receipts (carrier_key, receipt, parked_at) VALUES ('77', $1, now() - interval '1 minute')`, [
      JSON.stringify(receipt('77')),
    ]);
    expect(await newWriter().sweepParkedReceipts()).toBe(1);
    expect(await types(umid)).toEqual(['MessageQueued', 'MessageSent', 'MessageDelivered']);
    expect(await parked()).toBe(0);
  });

  describe('fencing tokens of the outbound queue', () => {
    const repository = () => new OutboundQueueRepository(ds, new ServiceSchema(schema));
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    /** Queues one message and puts it on the outbound queue, as the follower would. */
    async function onQueue(): Promise<string> {
      const [umid] = (await queue(['Hello'])) as [string];
      await new OutboundQueueProjection(schema).handle(await store.readStream(ds, messageStreamId(umid)), ds);
      return umid;
    }
    /** Claims until `umid` comes up (other tests' rows may be due too) and hands the others back. */
    async function claimOf(umid: string, leaseMs: number) {
      const claimed = await repository().claim(1_000, leaseMs);
      const mine = claimed.find((m) => m.umid === umid);
      await repository().release(claimed.filter((m) => m.umid !== umid), 0, false);
      if (!mine) throw new Error(`${umid} was not claimed`);
      return mine;
    }
    const leaseOf = async (umid: string) =>
      (await ds.query(`SELECT lease_token::text AS token, next_attempt_at > now() AS leased FROM "${schema}".outbound_queue WHERE umid = $1`, [umid]))[0];

    it('a sender whose lease ran out can neither hand the message back nor record its result over the new holder', async () => {
      const umid = await onQueue();
      const stale = await claimOf(umid, 20); // replica A: its lease runs out
      await sleep(50);
      const current = await claimOf(umid, 60_000); // replica B claims the message again
      expect(Number(current.leaseToken)).toBeGreaterThan(Number(stale.leaseToken));

      await repository().release([stale], 0);
      expect(await leaseOf(umid)).toEqual({ token: current.leaseToken, leased: true });

      // A's submit was refused by the carrier; B's goes through: B's result stands.
      const at = new Date().toISOString();
      await newWriter().record({ umid, leaseToken: stale.leaseToken, command: { type: 'RecordSubmissionFailure', errorCode: '0x00000045', errorMessage: 'refused', at } });
      expect(await types(umid)).toEqual(['MessageQueued']);
      await newWriter().record({ umid, leaseToken: current.leaseToken, command: { type: 'RecordSubmission', carrierMessageIds: ['f1'], at } });
      expect(await types(umid)).toEqual(['MessageQueued', 'MessageSent']);
      expect(await leaseOf(umid)).toBeUndefined(); // off the queue
    });

    it("the holder's own results and hand-backs go through", async () => {
      const umid = await onQueue();
      const held = await claimOf(umid, 60_000);
      await repository().release([held], 0);
      expect(await leaseOf(umid)).toEqual({ token: held.leaseToken, leased: false });
      const again = await claimOf(umid, 60_000);
      await newWriter().record({ umid, leaseToken: again.leaseToken, command: { type: 'RecordSubmission', carrierMessageIds: ['f2'], at: new Date().toISOString() } });
      expect(await types(umid)).toEqual(['MessageQueued', 'MessageSent']);
    });
  });
});
