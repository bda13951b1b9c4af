import { randomBytes } from 'node:crypto';
import { eventually, type RunningStack } from '@seed/platform-testing';
import type { SmsBatchDb } from './support/database';
import { ISO_UTC, postBatch, QUEUED, REJECTED, UUID, type Account, type BatchResponse } from './support/http';
import { consumeUntil, type ConsumedRecord } from './support/kafka';
import { useStack } from './support/stack';

interface MessageRow {
  umid: string;
  message_index: number;
  client_message_id: string | null;
  sub_account_id: string;
  destination: string;
  encoding: string;
  sms_count: number;
  state: string;
  detail: string;
}

/** What a batch leaves behind: read models in Postgres and events on the public Kafka topic. */
describe('batch SMS: read models and published events', () => {
  const ctx = useStack();
  let stack: RunningStack;
  let db: SmsBatchDb;
  let account: Account;
  const correlationId = `e2e-corr-${randomBytes(6).toString('hex')}`;
  let batch: BatchResponse;
  let responseCorrelationId: string | null;

  beforeAll(async () => {
    ({ stack, db } = ctx);
    account = await stack.createAccount();
    const res = await postBatch(
      stack,
      account,
      {
        clientBatchId: 'events-batch',
        template: { text: 'Your parcel is on its way', source: 'Parcels' },
        includeMessagesInResponse: true,
        messages: [
          { destination: '+447911000001', clientMessageId: 'first' },
          { destination: '+447911000002', clientMessageId: 'second', text: 'Посылка в пути' },
          { destination: 'not-a-number', clientMessageId: 'third' },
        ],
      },
      { headers: { 'x-correlation-id': correlationId } },
    );
    expect(res.status).toBe(200);
    responseCorrelationId = res.headers.get('x-correlation-id');
    batch = (await res.json()) as BatchResponse;
  });

  it('echoes the X-Correlation-Id the client sent', () => {
    expect(responseCorrelationId).toBe(correlationId);
  });

  it('projects one row per message, in its state, into the messages read model', async () => {
    const rows = await eventually(async () => {
      const found = await db.query<MessageRow>(`SELECT * FROM ${db.table('messages')} WHERE batch_id = $1 ORDER BY message_index`, [batch.batchId]);
      return found.length === 3 ? found : undefined;
    });
    const umids = batch.messages?.map((m) => m.umid);
    expect(rows.map((r) => r.umid)).toEqual(umids);
    // The simulated carrier takes accepted messages at once, so a row may already be past `queued`
    // when it is first read; whatever its state, the detail is that state's.
    const detailOf: Record<string, string> = { queued: QUEUED, sent: 'SMS is handed to the carrier', delivered: 'SMS is delivered to the handset' };
    for (const row of rows.slice(0, 2)) {
      expect(Object.keys(detailOf)).toContain(row.state);
      expect(row.detail).toBe(detailOf[row.state]);
    }
    expect(rows.map((r) => [r.message_index, r.client_message_id, r.destination, r.encoding])).toEqual([
      [0, 'first', '447911000001', 'GSM7'],
      [1, 'second', '447911000002', 'UCS2'],
      [2, 'third', 'not-a-number', 'GSM7'],
    ]);
    expect([rows[2]?.state, rows[2]?.detail]).toEqual(['rejected', REJECTED.invalidMsisdn]);
    expect(rows.every((r) => r.sub_account_id === account.subAccountId && r.sms_count === 1)).toBe(true);
  });

  it('projects the batch into the batches read model', async () => {
    const [row] = await eventually(async () => {
      const found = await db.query<Record<string, unknown>>(`SELECT * FROM ${db.table('batches')} WHERE batch_id = $1`, [batch.batchId]);
      return found.length === 1 ? found : undefined;
    });
    expect(row).toMatchObject({
      client_batch_id: 'events-batch',
      account_id: account.accountId,
      sub_account_id: account.subAccountId,
      accepted_count: 2,
      rejected_count: 1,
    });
  });

  it('publishes every event keyed by its stream id, in the documented envelope, with the client correlation id', async () => {
    const topic = `${stack.topicPrefix}sms-batch.events.v1`;
    // The acceptance events of this batch (its messages' later lifecycle events are another test's).
    const acceptance = ['BatchSubmitted', 'MessageQueued', 'MessageRejected'];
    const ofBatch = (r: ConsumedRecord) =>
      acceptance.includes(r.value['type'] as string) && (r.value['data'] as { batchId?: string } | undefined)?.batchId === batch.batchId;
    const records = (await consumeUntil(topic, (all) => all.filter(ofBatch).length >= 4)).filter(ofBatch);

    expect(records.map((r) => r.value['type']).sort()).toEqual(['BatchSubmitted', 'MessageQueued', 'MessageQueued', 'MessageRejected']);
    const umids = batch.messages?.map((m) => m.umid) ?? [];
    expect(records.map((r) => r.key).sort()).toEqual([`sms-batch-${batch.batchId}`, ...umids.map((u) => `sms-message-${u}`)].sort());

    const causations = new Set<unknown>();
    for (const { key, value, headers } of records) {
      expect(Object.keys(value)).toEqual(
        expect.arrayContaining(['eventId', 'type', 'schemaVersion', 'streamId', 'streamPosition', 'occurredAt', 'correlationId', 'causationId', 'data']),
      );
      expect(value).toMatchObject({ schemaVersion: 1, streamId: key, streamPosition: 1, correlationId });
      expect(value['eventId']).toMatch(UUID);
      expect(value['occurredAt']).toMatch(ISO_UTC);
      expect(typeof value['causationId']).toBe('string');
      causations.add(value['causationId']);
      expect(headers['correlation-id']).toBe(correlationId);
      expect(headers['message-id']).toBe(value['eventId']);
      expect(headers['message-type']).toBe(value['type']);
    }
    // One request, one command: every event of the batch is caused by it.
    expect(causations.size).toBe(1);

    const submitted = records.find((r) => r.value['type'] === 'BatchSubmitted')?.value['data'];
    expect(submitted).toMatchObject({ batchId: batch.batchId, clientBatchId: 'events-batch', acceptedCount: 2, rejectedCount: 1, umids });
    const rejected = records.find((r) => r.value['type'] === 'MessageRejected')?.value['data'];
    expect(rejected).toMatchObject({ umid: umids[2], index: 2, description: REJECTED.invalidMsisdn });
    // No secrets on a public topic.
    expect(JSON.stringify(records)).not.toContain(account.apiKey);
  });

  it('gives a request without X-Correlation-Id a generated one, carried by its events', async () => {
    const res = await postBatch(stack, account, { messages: [{ destination: '+447911000009', text: 'Hi' }] });
    expect(res.status).toBe(200);
    const generated = res.headers.get('x-correlation-id');
    expect(generated).toMatch(UUID);
    const { batchId } = (await res.json()) as BatchResponse;
    const rows = await db.query<{ correlation: string }>(
      `SELECT metadata->>'correlationId' AS correlation FROM ${db.table('events')} WHERE stream_id = $1`,
      [`sms-batch-${batchId}`],
    );
    expect(rows).toEqual([{ correlation: generated }]);
  });
});
