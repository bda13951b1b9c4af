import type { DataSource } from 'typeorm';
import { EventStore } from '@seed/platform-event-store';
import { dropSchema, eventually, openTestDataSource, testLogger, uniqueName } from '@seed/platform-testing';
import { NUMBERS_STREAM, type InboundMessageReceivedV1 } from '@seed/sms-batch-contracts';
import { isDeliveryReceipt } from '@seed/sms-batch-domain';
import { SmppCarrier } from '../carrier/smpp-carrier';
import { StoredNumbers } from '../numbers/stored-numbers';
import { migrateSmsBatchSchema, pipelineOf } from '../sms-batch.test-helpers';
import { DATA_SM, DELIVER_SM, fuzzPdus, GENERIC_NACK, RawSmsc, type FuzzKind, type FuzzPdu } from './inbound-fuzz.test-helpers';
import { InboundRecorder } from './inbound-recorder';

/*
 * Thousands of seeded deliver_sm and data_sm, well-formed and not, from a carrier over one real
 * SMPP session to the platform's session and inbound recorder on a real PostgreSQL. A carrier
 * retries a PDU answered with a temporary error for ever: each must be recorded and acknowledged,
 * or refused once for good, and the session must go on reading.
 */

const SEED = Number(process.env['INBOUND_FUZZ_SEED'] ?? 20261129);
const COUNT = 3000;
/** PDUs the carrier has out before it waits for their answers, as a carrier's window. */
const WINDOW = 50;
const NUMBER = '447700100100';
const ESME_ROK = 0x00;
const ESME_RX_R_APPN = 0x65;
const ESME_RINVMSGLEN = 0x01;

const schema = uniqueName('it_inbound_fuzz');
const store = new EventStore(schema);
let ds: DataSource;
let smsc: RawSmsc;
let carrier: SmppCarrier;

beforeAll(async () => {
  ds = await openTestDataSource(4);
  await migrateSmsBatchSchema(ds, schema);
  const at = new Date().toISOString();
  await store.append(ds.manager, [{ streamId: NUMBERS_STREAM, expectedVersion: 0, events: [{ type: 'NumberAssigned', schemaVersion: 1, data: { number: NUMBER, accountId: 'acme', subAccountId: 'acme_hq', inboundWebhookUrl: null, helpText: 'ACME: reply STOP to end', assignedAt: at } }] }], {
    correlationId: 'setup',
    causationId: null,
    occurredAt: at,
  });
  const logger = testLogger();
  const numbers = new StoredNumbers(ds.manager, store, logger);
  await numbers.refresh();
  const recorder = new InboundRecorder(ds, store, numbers, pipelineOf(ds, store, schema, logger), logger, { duplicateWindowMs: 60_000, maxWaitMs: 1 });
  smsc = await RawSmsc.start();
  const settings = { carrierId: 'fuzz', url: `smpp://seed:secret@127.0.0.1:${smsc.port}`, window: 10, enquireLinkMs: 30_000, responseTimeoutMs: 2000, reconnectMaxMs: 1000 };
  // As sms-batch routes them (sending.module.ts): a message from a handset is recorded as inbound SMS.
  carrier = new SmppCarrier(settings, logger, async (pdu) => {
    if (!isDeliveryReceipt(pdu.esmClass)) await recorder.record('fuzz', pdu.fields);
  });
  carrier.start();
  await eventually(async () => carrier.isBound() || undefined, 10_000, 20);
});

afterAll(async () => {
  await carrier?.stop();
  await smsc?.stop();
  await dropSchema(ds, schema);
  await ds.destroy();
});

describe('the inbound path over a real SMPP session, fuzzed', () => {
  it(`answers each of ${COUNT} seeded deliver_sm and data_sm once, recorded (0) or refused for good (0x65), never "try again", on one session`, async () => {
    const pdus = fuzzPdus(SEED, COUNT, NUMBER);
    for (let start = 0; start < pdus.length; start += WINDOW) {
      const window = pdus.slice(start, start + WINDOW);
      for (const pdu of window) smsc.send(pdu.bytes);
      await eventually(async () => (window.every((_, i) => smsc.responses.has(start + i + 1)) ? true : undefined), 30_000, 5);
    }

    const outcomes = new Map<string, number>();
    const unexpected: string[] = [];
    pdus.forEach((pdu, i) => {
      const answers = smsc.responses.get(i + 1) ?? [];
      const answer = answers[0];
      const outcome = answer === undefined ? 'unanswered' : answer.status === ESME_ROK ? 'recorded' : answer.status === ESME_RX_R_APPN ? 'refused' : `status 0x${answer.status.toString(16)}`;
      outcomes.set(`${pdu.kind} ${outcome}`, (outcomes.get(`${pdu.kind} ${outcome}`) ?? 0) + 1);
      if (answers.length !== 1 || !isFinalAnswer(pdu, answer)) unexpected.push(`#${i + 1} ${pdu.kind} ${pdu.bytes.toString('hex')}: ${JSON.stringify(answers)}`);
    });
    console.info(`inbound fuzz, seed ${SEED}: ${JSON.stringify(Object.fromEntries([...outcomes].sort()))}`);

    expect(unexpected).toEqual([]);
    // One session throughout: no PDU closed it, none left it reading nothing.
    expect(smsc.binds).toBe(1);
    expect(carrier.isBound()).toBe(true);
    // Every well-formed message was recorded, however strange its octets.
    const tracked = pdus.filter((pdu): pdu is FuzzPdu & { trackedSource: string } => pdu.trackedSource !== null);
    const recorded = new Set(
      ((await ds.query(`SELECT data FROM "${schema}".events WHERE type = 'InboundMessageReceived'`)) as { data: InboundMessageReceivedV1 }[]).map((row) => row.data.source),
    );
    expect(tracked.filter((pdu) => !recorded.has(pdu.trackedSource)).map((pdu) => pdu.bytes.toString('hex'))).toEqual([]);
    // The fuzz reached what it is for: each kind was sent, and malformed PDUs were refused.
    const sent = new Set(pdus.map((pdu) => pdu.kind));
    expect([...sent].sort()).toEqual((['plain', 'udh', 'truncated-udh', 'sar', 'payload', 'data_sm', 'keyword', 'empty', 'malformed'] satisfies FuzzKind[]).sort());
    expect(outcomes.get('malformed refused') ?? 0).toBeGreaterThan(0);
  }, 240_000);
});

/** The response a request of its command must get: its own response (or generic_nack for a body that is no PDU), 0 or 0x65. */
function isFinalAnswer(pdu: FuzzPdu, answer: { commandId: number; status: number } | undefined): boolean {
  if (!answer) return false;
  const command = pdu.bytes.readUInt32BE(4);
  if (answer.commandId === GENERIC_NACK) return answer.status === ESME_RINVMSGLEN;
  const own = (command === DELIVER_SM || command === DATA_SM) && answer.commandId === (command | 0x80000000) >>> 0;
  return own && (answer.status === ESME_ROK || answer.status === ESME_RX_R_APPN);
}
