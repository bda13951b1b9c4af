import type { DataSource } from 'typeorm';
import { PDU } from 'smpp/lib/pdu';
import { EventStore } from '@seed/platform-event-store';
import { dropSchema, openTestDataSource, testLogger, uniqueName } from '@seed/platform-testing';
import { NUMBERS_STREAM, optOutStreamId, type InboundMessageReceivedV1 } from '@seed/sms-batch-contracts';
import { StoredNumbers } from '../numbers/stored-numbers';
import { migrateSmsBatchSchema, pipelineOf } from '../sms-batch.test-helpers';
import { InboundRecorder } from './inbound-recorder';

const schema = uniqueName('it_inbound');
const store = new EventStore(schema);
let ds: DataSource;
let recorder: InboundRecorder;
let numbers: StoredNumbers;

const HANDSET = '447700900123';
const NUMBER = '447700100100';
/** A deliver_sm as the carrier writes it, read back through the smpp library as a session hands it over. */
const wire = (fields: Record<string, unknown>): Readonly<Record<string, unknown>> =>
  new PDU(new PDU('deliver_sm', { sequence_number: 1, source_addr_ton: 1, source_addr_npi: 1, source_addr: HANDSET, destination_addr: NUMBER, ...fields }).toBuffer());
const text = (body: string) => wire({ data_coding: 0, short_message: { message: body } });
/** UCS-2 part `sequence` of `total` (UDH reference 42): its UTF-16BE octets. */
const ucs2Part = (octets: number[], sequence: number, total = 3) => wire({ esm_class: 0x40, data_coding: 8, short_message: Buffer.from([0x05, 0x00, 0x03, 42, total, sequence, ...octets]) });
const utf16 = (s: string) => [...Buffer.from(s, 'utf16le').swap16()];

const received = async (): Promise<InboundMessageReceivedV1[]> =>
  ((await ds.query(`SELECT data FROM "${schema}".events WHERE type = 'InboundMessageReceived' ORDER BY global_position`)) as { data: InboundMessageReceivedV1 }[]).map((r) => r.data);

beforeAll(async () => {
  ds = await openTestDataSource(4);
  await migrateSmsBatchSchema(ds, schema);
  await store.append(ds.manager, [{ streamId: NUMBERS_STREAM, expectedVersion: 0, events: [{ type: 'NumberAssigned', schemaVersion: 1, data: { number: NUMBER, accountId: 'acme', subAccountId: 'acme_hq', inboundWebhookUrl: null, helpText: 'ACME parcels: reply STOP to end', assignedAt: new Date().toISOString() } }] }], {
    correlationId: 'setup',
    causationId: null,
    occurredAt: new Date().toISOString(),
  });
  const logger = testLogger();
  numbers = new StoredNumbers(ds.manager, store, logger);
  await numbers.refresh();
  recorder = new InboundRecorder(ds, store, numbers, pipelineOf(ds, store, schema, logger), logger, { duplicateWindowMs: 60_000, maxWaitMs: 1 });
});

afterAll(async () => {
  await dropSchema(ds, schema);
  await ds.destroy();
});

describe('InboundRecorder', () => {
  it('records a STOP to one of our numbers as the message and the sender’s opt-out, once however often the carrier sends it', async () => {
    await recorder.record('default', text('Stop'));
    await recorder.record('default', text('Stop')); // the carrier's resend after a lost deliver_sm_resp
    const [message, ...more] = await received();
    expect(more).toEqual([]);
    expect(message).toMatchObject({ accountId: 'acme', subAccountId: 'acme_hq', source: HANDSET, destination: NUMBER, body: 'Stop', keyword: 'opt-out', smsCount: 1, incomplete: false });
    const optOut = await store.readStream(ds.manager, optOutStreamId('acme_hq', HANDSET));
    expect(optOut.map((e) => e.type)).toEqual(['RecipientOptedOut']);
    // The opt-out is correlated with the message that caused it.
    expect(optOut[0]?.correlationId).toBe(message?.umid);
    await recorder.record('default', text('START'));
    expect((await store.readStream(ds.manager, optOutStreamId('acme_hq', HANDSET))).map((e) => e.type)).toEqual(['RecipientOptedOut', 'RecipientOptedIn']);
  });

  it('opts out the E.164 number of a sender the carrier gave in national form, so that the STOP matches what is sent to it', async () => {
    await recorder.record('default', wire({ source_addr_ton: 2, source_addr: '07911123456', data_coding: 0, short_message: { message: 'STOP' } }));
    const message = (await received()).find((m) => m.body === 'STOP' && m.source === '447911123456');
    expect(message).toMatchObject({ source: '447911123456', keyword: 'opt-out', accountId: 'acme' });
    expect((await store.readStream(ds.manager, optOutStreamId('acme_hq', '447911123456'))).map((e) => e.type)).toEqual(['RecipientOptedOut']);
  });

  it('answers HELP with the number’s help text, from the number, as a batch of one of its sub-account, once', async () => {
    const from = wire({ source_addr: '447911123456', data_coding: 0, short_message: { message: 'help' } });
    await recorder.record('default', from);
    await recorder.record('default', from); // a resend: no second answer
    const queued = (await ds.query(`SELECT data FROM "${schema}".events WHERE type = 'MessageQueued'`)) as { data: { destination: string; source: string; text: string; subAccountId: string } }[];
    expect(queued.map((r) => r.data)).toEqual([expect.objectContaining({ destination: '447911123456', source: NUMBER, text: 'ACME parcels: reply STOP to end', subAccountId: 'acme_hq' })]);
    const [help] = (await received()).filter((m) => m.keyword === 'help');
    const batches = (await ds.query(`SELECT data FROM "${schema}".events WHERE type = 'BatchSubmitted'`)) as { data: { clientBatchId: string } }[];
    expect(batches.map((b) => b.data.clientBatchId)).toEqual([`help-${help?.umid}`]);
  });

  it('joins a 3-part UCS-2 message with an emoji split across parts, out of order, repeated and racing, into one message', async () => {
    const octets = utf16('Hello 😀 from the other side!'); // the emoji's surrogate pair straddles parts 1 and 2
    const cut1 = 14; // 7 code units: 'Hello ' and the high surrogate
    const cut2 = 40;
    const parts = [octets.slice(0, cut1), octets.slice(cut1, cut2), octets.slice(cut2)];
    await Promise.all([recorder.record('default', ucs2Part(parts[2] as number[], 3)), recorder.record('carrier-b', ucs2Part(parts[0] as number[], 1))]);
    await recorder.record('default', ucs2Part(parts[0] as number[], 1));
    await recorder.record('default', ucs2Part(parts[1] as number[], 2));
    const joined = (await received()).filter((m) => m.smsCount === 3);
    expect(joined).toHaveLength(1);
    expect(joined[0]).toMatchObject({ body: 'Hello 😀 from the other side!', encoding: 'UCS2', incomplete: false, keyword: null });
    expect(await recorder.overdue()).toEqual([]);
  });

  it('delivers a part whose siblings never came, marked incomplete, once it has waited', async () => {
    await recorder.record('default', wire({ esm_class: 0x40, data_coding: 0, short_message: Buffer.from([0x05, 0x00, 0x03, 9, 2, 1, 0x48, 0x69]) }));
    await new Promise((resolve) => setTimeout(resolve, 20));
    const overdue = await recorder.overdue();
    expect(overdue).toHaveLength(1);
    await Promise.all(overdue.map((streamId) => recorder.expire(streamId)));
    await recorder.expire(overdue[0] as string); // a second sweeper finds nothing left to do
    expect((await received()).filter((m) => m.incomplete)).toEqual([expect.objectContaining({ body: 'Hi', smsCount: 1, incomplete: true })]);
    expect(await recorder.overdue()).toEqual([]);
  });

  it('writes deliver_sm that arrive while a batch is written together, each decided as it would be alone', async () => {
    const from = (source: string, body: string) => wire({ source_addr: source, data_coding: 0, short_message: { message: body } });
    // The first goes alone; the others arrive while it is written and go together: a STOP and START of one handset, in order, and a resend.
    await Promise.all([
      recorder.record('default', from('447911200001', 'first')),
      recorder.record('default', from('447911200002', 'STOP')),
      recorder.record('default', from('447911200002', 'START')),
      recorder.record('default', from('447911200002', 'START')),
    ]);
    const changes = await store.readStream(ds.manager, optOutStreamId('acme_hq', '447911200002'));
    expect(changes.map((e) => e.type)).toEqual(['RecipientOptedOut', 'RecipientOptedIn']);
    expect((await received()).filter((m) => m.source === '447911200002').map((m) => m.body)).toEqual(['STOP', 'START']);
  });

  it('records a message to a number that is not ours without an owner, and opts nobody out', async () => {
    await recorder.record('default', new PDU(new PDU('deliver_sm', { sequence_number: 2, source_addr: '447700900999', destination_addr: '999999', short_message: { message: 'STOP' } }).toBuffer()));
    const last = (await received()).at(-1);
    expect(last).toMatchObject({ destination: '999999', accountId: null, subAccountId: null, keyword: 'opt-out' });
    expect(await store.readStream(ds.manager, optOutStreamId('acme_hq', '447700900999'))).toEqual([]);
  });

  it('records a STOP, START or HELP from a carrier that may not deliver to the number without an owner, marked, and acts on none', async () => {
    const BOUND = '447911300300';
    const at = new Date().toISOString();
    const assigned = { number: BOUND, accountId: 'acme', subAccountId: 'acme_hq', inboundWebhookUrl: null, helpText: 'ACME: reply STOP to end', carriers: ['carrier-a'], assignedAt: at };
    await store.append(ds.manager, [{ streamId: NUMBERS_STREAM, expectedVersion: 1, events: [{ type: 'NumberAssigned', schemaVersion: 1, data: assigned }] }], { correlationId: 'bound', causationId: null, occurredAt: at });
    const logger = testLogger();
    const held = new InboundRecorder(ds, store, numbers, pipelineOf(ds, store, schema, logger), logger, { duplicateWindowMs: 60_000, maxWaitMs: 1 });
    held.bindRouting(() => ({ routes: [], carriers: new Map() }));
    const from = (carrierId: string, body: string) => held.record(carrierId, wire({ source_addr: '447911400400', destination_addr: BOUND, data_coding: 0, short_message: { message: body } }));
    await from('carrier-a', 'STOP');
    await from('carrier-x', 'START'); // forged: carrier-x may not deliver to the number
    await from('carrier-x', 'HELP');
    const messages = (await received()).filter((m) => m.destination === BOUND);
    expect(messages.map((m) => [m.body, m.accountId, m.unboundCarrier ?? false])).toEqual([
      ['STOP', 'acme', false],
      ['START', null, true],
      ['HELP', null, true],
    ]);
    // The STOP holds; the forged START did not opt the handset back in, and HELP was not answered.
    expect((await store.readStream(ds.manager, optOutStreamId('acme_hq', '447911400400'))).map((e) => e.type)).toEqual(['RecipientOptedOut']);
    const queued = (await ds.query(`SELECT data FROM "${schema}".events WHERE type = 'MessageQueued'`)) as { data: { destination: string } }[];
    expect(queued.filter((r) => r.data.destination === '447911400400')).toEqual([]);
  });

  it('answers a handset at most three HELPs an hour from one number; the others are recorded, not answered', async () => {
    const handset = '447911500500';
    for (const body of ['HELP', 'help', 'Help', 'INFO', 'info']) await recorder.record('default', wire({ source_addr: handset, data_coding: 0, short_message: { message: body } }));
    const helps = (await received()).filter((m) => m.source === handset && m.keyword === 'help');
    expect(helps).toHaveLength(5);
    const batches = (await ds.query(`SELECT data FROM "${schema}".events WHERE type = 'BatchSubmitted'`)) as { data: { clientBatchId: string } }[];
    const answered = helps.filter((m) => batches.some((b) => b.data.clientBatchId === `help-${m.umid}`)).map((m) => m.body);
    expect(answered).toEqual(['HELP', 'help', 'Help']);
  });
});

