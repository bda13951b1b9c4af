import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type { CommandReply } from '@seed/contracts';
import { EventStore, ProcessedMessages } from '@seed/platform-event-store';
import type { CommandContext } from '@seed/platform-kafka';
import { ServiceSchema } from '@seed/platform-nest';
import { dropSchema, openTestDataSource, testLogger, uniqueName } from '@seed/platform-testing';
import {
  batchStreamId,
  messageStreamId,
  SMS_BATCH_SERVICE_COMMAND_TOPIC,
  type BatchResponse,
  type BatchSubmittedV1,
  type MessageQueuedV1,
  type SubmitBatchCommand,
  type SubmitBatchData,
  type SubmitBatchesCommand,
  type SubmitBatchesItem,
  type SubmitBatchesResult,
} from '@seed/sms-batch-contracts';
import { migrateSmsBatchSchema, mixedBatch, pipelineOf } from '../sms-batch.test-helpers';
import { parseKeyring, sealText } from '@seed/platform-secrets';
import { SealedTexts } from '../sealed-texts';
import { SubmitBatchHandler } from './submit-batch.handler';

const MAX_AGE_MS = 30_000;
const SEALING_KEYS = `k1:${Buffer.alloc(32, 7).toString('base64')}`;

const schema = uniqueName('it_submit_batch');
const store = new EventStore(schema);
let ds: DataSource;
let handler: SubmitBatchHandler;

const commandOf = (data: SubmitBatchData, commandId = randomUUID()): SubmitBatchCommand => ({
  commandId,
  type: 'SubmitBatch',
  issuedAt: new Date().toISOString(),
  data,
});
const contextOf = (command: SubmitBatchCommand): CommandContext => ({
  correlationId: `corr-${command.commandId}`,
  causationId: command.commandId,
  traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
});
const submit = (command: SubmitBatchCommand): Promise<CommandReply<BatchResponse>> => handler.submit(command, contextOf(command));

async function accepted(command: SubmitBatchCommand): Promise<BatchResponse> {
  const reply = await submit(command);
  if (!reply.ok) throw new Error(`rejected: ${JSON.stringify(reply.failure)}`);
  return reply.result;
}

const countEvents = async (where = 'true', params: unknown[] = []): Promise<number> =>
  (await ds.query(`SELECT count(*)::int AS n FROM "${schema}".events WHERE ${where}`, params))[0].n;
const batchesWithClientBatchId = async (subAccountId: string, clientBatchId: string): Promise<number> =>
  countEvents(`type = 'BatchSubmitted' AND data->>'subAccountId' = $1 AND data->>'clientBatchId' = $2`, [subAccountId, clientBatchId]);

beforeAll(async () => {
  ds = await openTestDataSource(8);
  await migrateSmsBatchSchema(ds, schema);
  const logger = testLogger();
  handler = new SubmitBatchHandler(
    store,
    new ProcessedMessages(schema),
    pipelineOf(ds, store, schema, logger),
    new ServiceSchema(schema),
    logger,
    new SealedTexts(SEALING_KEYS),
    MAX_AGE_MS,
  );
});

afterAll(async () => {
  await dropSchema(ds, schema);
  await ds.destroy();
});

describe('SubmitBatchHandler', () => {
  it('keeps a sealed text out of the log: the event shows the redacted text and carries the sealed one', async () => {
    const secret = 'Your verification code is 904211';
    const sealedText = sealText(parseKeyring(SEALING_KEYS), secret);
    const response = await accepted(
      commandOf({
        accountId: 'acme',
        subAccountId: 'acme_hq',
        includeMessagesInResponse: true,
        messages: [{ destination: '+447400123456', text: 'Your verification code is ******', sealedText }],
      }),
    );
    expect(response.acceptedCount).toBe(1);
    const umid = response.messages![0]!.umid;
    const [queued] = await store.readStream(ds, messageStreamId(umid));
    expect(queued?.data).toMatchObject({ text: 'Your verification code is ******', sealedText, smsCount: 1, encoding: 'GSM7' });
    const rows: { n: number }[] = await ds.query(`SELECT count(*)::int AS n FROM "${schema}".events WHERE data::text LIKE '%904211%'`);
    expect(rows[0]!.n).toBe(0);
  });

  it('refuses a sealed text it cannot open, with 1004, and writes nothing', async () => {
    const before = await countEvents();
    const foreign = sealText(parseKeyring(`k9:${Buffer.alloc(32, 9).toString('base64')}`), 'hello');
    const reply = await submit(
      commandOf({ accountId: 'acme', subAccountId: 'acme_hq', includeMessagesInResponse: false, messages: [{ destination: '+447400123456', text: '*****', sealedText: foreign }] }),
    );
    expect(reply).toMatchObject({ ok: false, failure: { status: 400, code: 1004 } });
    expect(await countEvents()).toBe(before);
  });

  it('records the batch and one event per message, with the command as cause and the request as correlation', async () => {
    const command = commandOf(mixedBatch('acme_hq', { clientBatchId: 'cb-events' }));
    const response = await accepted(command);

    expect(response).toMatchObject({ clientBatchId: 'cb-events', acceptedCount: 3, rejectedCount: 2 });
    expect(response.messages?.map((m) => m.status.code)).toEqual(['QUEUED', 'QUEUED', 'QUEUED', 'REJECTED', 'REJECTED']);
    const umids = response.messages!.map((m) => m.umid);

    const [batchEvent, ...rest] = await store.readStream(ds, batchStreamId(response.batchId));
    expect(rest).toEqual([]);
    expect(batchEvent).toMatchObject({
      type: 'BatchSubmitted',
      streamPosition: 1,
      correlationId: `corr-${command.commandId}`,
      causationId: command.commandId,
      traceparent: contextOf(command).traceparent,
    });
    const batch = batchEvent!.data as BatchSubmittedV1;
    expect(batch).toMatchObject({ batchId: response.batchId, clientBatchId: 'cb-events', accountId: 'acme', subAccountId: 'acme_hq', umids });

    const streams = await store.readStreams(ds, umids.map(messageStreamId));
    const firstEvents = umids.map((umid) => {
      const events = streams.get(messageStreamId(umid))!;
      expect(events).toHaveLength(1);
      return events[0]!;
    });
    expect(firstEvents.map((e) => e.type)).toEqual(['MessageQueued', 'MessageQueued', 'MessageQueued', 'MessageRejected', 'MessageRejected']);
    firstEvents.forEach((e, index) => {
      // Same correlation and cause as the batch event, and the same transaction.
      expect(e).toMatchObject({ correlationId: batchEvent!.correlationId, causationId: command.commandId, transactionId: batchEvent!.transactionId });
      expect(e.data).toMatchObject({ umid: umids[index], batchId: response.batchId, index });
    });
    expect((firstEvents[0]!.data as MessageQueuedV1).destination).toBe('447400123456');
  });

  it('appends once for the same command delivered twice and answers both times alike', async () => {
    const command = commandOf(mixedBatch('acme_hq'));
    const first = await submit(command);
    const eventsAfterFirst = await countEvents();
    const again = await submit(command);

    expect(first.ok).toBe(true);
    expect(again).toEqual(first);
    expect(await countEvents()).toBe(eventsAfterFirst);
    expect(await countEvents(`metadata->>'causationId' = $1`, [command.commandId])).toBe(1 + command.data.messages.length);
  });

  it('answers a new command with a known clientBatchId with the first batch id and umids, per sub-account', async () => {
    const first = await accepted(commandOf(mixedBatch('acme_hq', { clientBatchId: 'cb-dup' })));
    const eventsBefore = await countEvents();

    const second = await accepted(commandOf(mixedBatch('acme_hq', { clientBatchId: 'cb-dup' })));
    expect(second).toEqual(first);
    // Even a different body: the client's key names the batch it already sent.
    const different = await accepted(commandOf(mixedBatch('acme_hq', { clientBatchId: 'cb-dup', messages: [{ destination: '+447400999999' }] })));
    expect(different.batchId).toBe(first.batchId);
    expect(different.messages?.map((m) => m.umid)).toEqual(first.messages?.map((m) => m.umid));
    expect(await countEvents()).toBe(eventsBefore);

    const otherSubAccount = await accepted(commandOf(mixedBatch('acme_eu', { clientBatchId: 'cb-dup' })));
    expect(otherSubAccount.batchId).not.toBe(first.batchId);
    expect(await batchesWithClientBatchId('acme_hq', 'cb-dup')).toBe(1);
    expect(await batchesWithClientBatchId('acme_eu', 'cb-dup')).toBe(1);
  });

  it('decides one batch when several commands with the same clientBatchId race', async () => {
    const commands = [1, 2, 3].map(() => commandOf(mixedBatch('acme_race', { clientBatchId: 'cb-race' })));
    const responses = await Promise.all(commands.map(accepted));

    expect(new Set(responses.map((r) => r.batchId)).size).toBe(1);
    expect(responses[1]).toEqual(responses[0]);
    expect(responses[2]).toEqual(responses[0]);
    expect(await batchesWithClientBatchId('acme_race', 'cb-race')).toBe(1);
    expect(await countEvents(`data->>'clientBatchId' = 'cb-race'`)).toBe(1 + 5);
  });
});

describe('SubmitBatchHandler, SubmitBatches (several batches in one command)', () => {
  const sealing = parseKeyring(SEALING_KEYS);
  const oneSms = (subAccountId: string, clientBatchId: string | undefined, code = '123456'): SubmitBatchData => ({
    accountId: 'acme',
    subAccountId,
    ...(clientBatchId !== undefined ? { clientBatchId } : {}),
    includeMessagesInResponse: true,
    messages: [{ destination: '+447400123456', text: 'Your verification code is ******', sealedText: sealText(sealing, `Your verification code is ${code}`) }],
  });
  const itemOf = (batch: SubmitBatchData, n: number): SubmitBatchesItem => ({
    batch,
    correlationId: `request-${n}`,
    traceparent: `00-0af7651916cd43dd8448eb211c8031${String(n).padStart(2, '0')}-b7ad6b7169203331-01`,
  });
  const manyOf = (items: SubmitBatchesItem[]): SubmitBatchesCommand => ({
    commandId: randomUUID(),
    type: 'SubmitBatches',
    issuedAt: new Date().toISOString(),
    data: { batches: items },
  });
  async function submitMany(command: SubmitBatchesCommand): Promise<SubmitBatchesResult> {
    const reply = await handler.submitMany(command);
    if (!reply.ok) throw new Error(`refused: ${JSON.stringify(reply.failure)}`);
    return reply.result;
  }
  const accepted = (reply: SubmitBatchesResult['results'][number] | undefined): BatchResponse => {
    if (!reply?.ok) throw new Error(`batch refused: ${JSON.stringify(reply)}`);
    return reply.result;
  };

  it('decides each batch as its own, with its own request as correlation and trace, in one transaction', async () => {
    const command = manyOf([itemOf(oneSms('acme_hq', 'verify-a-1'), 1), itemOf(oneSms('acme_eu', 'verify-b-1'), 2), itemOf(oneSms('acme_hq', 'verify-c-1'), 3)]);
    const { results } = await submitMany(command);

    expect(results).toHaveLength(3);
    const responses = results.map(accepted);
    expect(responses.map((r) => r.clientBatchId)).toEqual(['verify-a-1', 'verify-b-1', 'verify-c-1']);
    expect(new Set(responses.map((r) => r.batchId)).size).toBe(3);
    expect(responses.map((r) => r.messages?.[0]?.status.code)).toEqual(['QUEUED', 'QUEUED', 'QUEUED']);

    const batchEvents = await Promise.all(responses.map(async (r) => (await store.readStream(ds, batchStreamId(r.batchId)))[0]!));
    expect(batchEvents.map((e) => (e.data as BatchSubmittedV1).subAccountId)).toEqual(['acme_hq', 'acme_eu', 'acme_hq']);
    expect(batchEvents.map((e) => e.correlationId)).toEqual(['request-1', 'request-2', 'request-3']);
    expect(batchEvents.map((e) => e.traceparent)).toEqual(command.data.batches.map((b) => b.traceparent));
    expect(new Set(batchEvents.map((e) => e.causationId))).toEqual(new Set([command.commandId]));
    expect(new Set(batchEvents.map((e) => e.transactionId)).size).toBe(1);
    const [queued] = await store.readStream(ds, messageStreamId(responses[1]!.messages![0]!.umid));
    expect(queued).toMatchObject({ type: 'MessageQueued', correlationId: 'request-2' });
  });

  it('refuses one batch alone (no clientBatchId, a sealed text it cannot open) and decides the others', async () => {
    const before = await countEvents();
    const foreign = sealText(parseKeyring(`k9:${Buffer.alloc(32, 9).toString('base64')}`), 'hello');
    const unopenable: SubmitBatchData = { ...oneSms('acme_hq', 'verify-e-1'), messages: [{ destination: '+447400123456', text: '*****', sealedText: foreign }] };
    const { results } = await submitMany(manyOf([itemOf(oneSms('acme_hq', undefined), 1), itemOf(unopenable, 2), itemOf(oneSms('acme_hq', 'verify-d-1'), 3)]));

    expect(results[0]).toMatchObject({ ok: false, failure: { status: 400, code: 1000 } });
    expect(results[1]).toMatchObject({ ok: false, failure: { status: 400, code: 1004 } });
    expect(accepted(results[2]).clientBatchId).toBe('verify-d-1');
    expect(await countEvents()).toBe(before + 2); // the one decided batch: BatchSubmitted, MessageQueued
    expect(await batchesWithClientBatchId('acme_hq', 'verify-e-1')).toBe(0);
  });

  it('answers the same command delivered twice, and a later one with known clientBatchIds, with the first batches', async () => {
    const command = manyOf([itemOf(oneSms('acme_hq', 'verify-f-1'), 1), itemOf(oneSms('acme_eu', 'verify-g-1'), 2)]);
    const first = await submitMany(command);
    const eventsAfterFirst = await countEvents();

    expect(await submitMany(command)).toEqual(first);
    const later = await submitMany(manyOf([itemOf(oneSms('acme_eu', 'verify-g-1'), 3), itemOf(oneSms('acme_hq', 'verify-f-1'), 4)]));
    expect(later.results).toEqual([first.results[1], first.results[0]]);
    expect(await countEvents()).toBe(eventsAfterFirst);
    expect(await batchesWithClientBatchId('acme_hq', 'verify-f-1')).toBe(1);
  });

  it('decides a clientBatchId once: given twice in a command, or in commands that race', async () => {
    const twice = await submitMany(manyOf([itemOf(oneSms('acme_hq', 'verify-h-1'), 1), itemOf(oneSms('acme_hq', 'verify-h-1', '999999'), 2)]));
    expect(twice.results[1]).toEqual(twice.results[0]);
    expect(await batchesWithClientBatchId('acme_hq', 'verify-h-1')).toBe(1);

    const racing = await Promise.all(
      [['verify-i-1', 'verify-j-1'], ['verify-j-1', 'verify-i-1'], ['verify-i-1', 'verify-k-1']].map(([a, b], n) =>
        submitMany(manyOf([itemOf(oneSms('acme_race', a), n), itemOf(oneSms('acme_race', b), n + 10)])),
      ),
    );
    const batchIdOf = new Map<string, Set<string>>();
    for (const { results } of racing) {
      for (const reply of results) {
        const response = accepted(reply);
        batchIdOf.set(response.clientBatchId!, (batchIdOf.get(response.clientBatchId!) ?? new Set()).add(response.batchId));
      }
    }
    expect([...batchIdOf.entries()].map(([id, ids]) => [id, ids.size]).sort()).toEqual([['verify-i-1', 1], ['verify-j-1', 1], ['verify-k-1', 1]]);
    for (const id of ['verify-i-1', 'verify-j-1', 'verify-k-1']) expect(await batchesWithClientBatchId('acme_race', id)).toBe(1);
  });
});

describe('SubmitBatchHandler, the gateway deadline and Idempotency-Key', () => {
  const single = (destination: string, idempotency?: SubmitBatchData['idempotency'], text = 'Hello'): SubmitBatchData => ({
    accountId: 'idem',
    subAccountId: 'idem_hq',
    includeMessagesInResponse: true,
    refuseRejected: true,
    messages: [{ destination, text }],
    ...(idempotency && { idempotency }),
  });
  const late = (data: SubmitBatchData, commandId = randomUUID()): SubmitBatchCommand => ({
    ...commandOf(data, commandId),
    issuedAt: new Date(Date.now() - MAX_AGE_MS).toISOString(),
  });
  const toDestination = (destination: string) => countEvents(`type = 'MessageQueued' AND data->>'destination' = $1`, [destination]);

  it('answers a command past the deadline 503 and appends nothing; its retry with the same key sends the message once', async () => {
    const idempotency = { key: `k-${randomUUID()}`, requestHash: 'h1' };
    const before = await countEvents();
    expect(await submit(late(single('+447400200001', idempotency)))).toMatchObject({ ok: false, failure: { status: 503, code: 2000, retryAfterSeconds: 5 } });
    expect(await countEvents()).toBe(before);
    const first = await accepted(commandOf(single('+447400200001', idempotency)));
    const again = await submit(commandOf(single('+447400200001', idempotency)));
    expect(again).toEqual({ ok: true, result: { ...first, idempotentReplay: true } });
    expect(await toDestination('447400200001')).toBe(1);
  });

  it("decides a neighbouring service's late SubmitBatch (service-commands topic): its clientBatchId makes a repeat harmless", async () => {
    const command = late({ ...single('+447400200006'), clientBatchId: `guest-link-${randomUUID()}` });
    const reply = await handler.submit(command, { ...contextOf(command), topic: `prefix.${SMS_BATCH_SERVICE_COMMAND_TOPIC}` });
    expect(reply).toMatchObject({ ok: true });
    expect(await submit(late({ ...single('+447400200007') }))).toMatchObject({ ok: false, failure: { status: 503 } });
    expect(await toDestination('447400200006')).toBe(1);
  });

  it('tolerates a clock a little ahead of the gateway: a command "from the future" is decided', async () => {
    const command = { ...commandOf(single('+447400200002')), issuedAt: new Date(Date.now() + 1000).toISOString() };
    expect(await submit(command)).toMatchObject({ ok: true });
  });

  it('still answers a command it already decided with its first answer once the deadline has passed (redelivery)', async () => {
    const command = commandOf(single('+447400200003'));
    const first = await accepted(command);
    expect(await submit({ ...command, issuedAt: new Date(Date.now() - 10 * MAX_AGE_MS).toISOString() })).toEqual({ ok: true, result: first });
    expect(await toDestination('447400200003')).toBe(1);
  });

  it('answers the same key and request with the first batch, and the same key with another request 422, writing nothing', async () => {
    const key = `k-${randomUUID()}`;
    const first = await accepted(commandOf(single('+447400200004', { key, requestHash: 'same' })));
    const before = await countEvents();
    expect(await submit(commandOf(single('+447400200004', { key, requestHash: 'same' })))).toEqual({ ok: true, result: { ...first, idempotentReplay: true } });
    const reused = await submit(commandOf(single('+447400200005', { key, requestHash: 'other' }, 'Bye')));
    expect(reused).toMatchObject({ ok: false, failure: { status: 422, code: 1000, message: expect.stringContaining('Idempotency-Key') } });
    expect(await countEvents()).toBe(before);
  });

  it('scopes keys to the account', async () => {
    const key = `k-${randomUUID()}`;
    const a = await accepted(commandOf(single('+447400200006', { key, requestHash: 'h' })));
    const b = await accepted(commandOf({ ...single('+447400200006', { key, requestHash: 'h' }), accountId: 'other', subAccountId: 'other_hq' }));
    expect(b.batchId).not.toBe(a.batchId);
  });

  it('decides two concurrent requests with the same key once: the second waits and gets the first batch', async () => {
    const key = `k-${randomUUID()}`;
    const [x, y] = await Promise.all([
      submit(commandOf(single('+447400200007', { key, requestHash: 'h' }))),
      submit(commandOf({ ...single('+447400200007', { key, requestHash: 'h' }), subAccountId: 'idem_eu' })),
    ]);
    expect(x.ok && y.ok).toBe(true);
    if (x.ok && y.ok) expect(x.result.batchId).toBe(y.result.batchId);
    expect(await toDestination('447400200007')).toBe(1);
  });

  it('treats a key older than 24 h as new', async () => {
    const key = `k-${randomUUID()}`;
    const first = await accepted(commandOf(single('+447400200008', { key, requestHash: 'h' })));
    await ds.query(`UPDATE "${schema}".idempotency_keys SET created_at = now() - interval '25 hours' WHERE idempotency_key = $1`, [key]);
    const second = await accepted(commandOf(single('+447400200008', { key, requestHash: 'other' })));
    expect(second.batchId).not.toBe(first.batchId);
  });
});
