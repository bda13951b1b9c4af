import type { InboundView } from './inbound-routes';
import { startSimulator, type RunningSimulator } from './simulator';
import { TestEsme, getJson, waitUntil, type LibPdu } from './smpp-esme.test-helpers';

// Mobile-originated messages sent through `POST /inbound`, received by the npm `smpp` library as
// the ESME over real TCP: its decoding is independent of the simulator's encoding. One simulator
// per test, as in smsc-simulator.int.spec.ts.

/** A deliver_sm as the library decodes it, with the fields these tests read. */
interface LibDeliverSm extends LibPdu {
  esm_class: number;
  data_coding: number;
  source_addr: string;
  destination_addr: string;
  short_message: { message: string; udh?: Buffer[] };
  sar_msg_ref_num?: number;
  sar_total_segments?: number;
  sar_segment_seqnum?: number;
}

let simulator: RunningSimulator;
let esmes: TestEsme[];

async function esme(type: 'transceiver' | 'transmitter' | 'receiver' = 'transceiver'): Promise<TestEsme> {
  const client = await TestEsme.bound(simulator.smppPort, type);
  esmes.push(client);
  return client;
}
const originate = (body: Record<string, unknown>) =>
  getJson<InboundView & { error?: string; problems?: string[] }>(simulator.httpPort, '/inbound', {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body),
  });
const inbound = async (id: string) => (await getJson<InboundView>(simulator.httpPort, `/inbound/${id}`)).body;
const received = async (client: TestEsme, count: number) => (await client.waitForDeliveries(count)) as unknown as LibDeliverSm[];
const hex = (udh: Buffer[] | undefined) => (udh ?? []).map((ie) => ie.toString('hex'));

beforeEach(async () => {
  esmes = [];
  simulator = await startSimulator({ host: '127.0.0.1', smppPort: 0, httpPort: 0, logLevel: 'silent', receiptDelayMs: 20 });
});
afterEach(async () => {
  await Promise.all(esmes.map((e) => e.disconnect()));
  await simulator.stop();
});

describe('POST /inbound', () => {
  it('sends a single GSM-7 message as one deliver_sm, one septet per octet, and records its answer', async () => {
    const client = await esme('receiver');
    const { status, body } = await originate({ source: '447700900123', destination: '447700100100', text: 'STOP @ 5€' });
    expect(status).toBe(201);
    expect(body).toMatchObject({
      id: expect.stringMatching(/^mo-\d+$/), encoding: 'gsm7', dataCoding: 0, concatenation: null, reference: null,
      parts: [{ number: 1, esmClass: 0, udh: null, payload: '53544f5020002035' + '1b65', shortMessage: '53544f50200020351b65', sar: null }],
      deliveries: [{ part: 1, reason: 'first', session: { id: 1, systemId: 'seed', bindType: 'receiver' }, response: null }],
    });

    const [pdu] = await received(client, 1);
    expect(pdu).toMatchObject({ command: 'deliver_sm', esm_class: 0, data_coding: 0, source_addr: '447700900123', destination_addr: '447700100100' });
    // The library's own GSM 03.38 table reads '@' from 0x00 and '€' from the escape 0x1B 0x65.
    expect(pdu?.short_message.message).toBe('STOP @ 5€');
    expect(body.deliveries[0]?.sequenceNumber).toBe(pdu?.sequence_number);

    await waitUntil(async () => (await inbound(body.id)).acknowledged);
    expect((await inbound(body.id)).deliveries[0]?.response).toMatchObject({ status: 0, lost: false });
  });

  it('sends a 3-part UCS-2 message with an emoji in the order asked, with matching 8-bit-reference UDHs', async () => {
    const client = await esme();
    const text = `${'Привет '.repeat(9)}😀${' мир'.repeat(20)}`; // 144 + 80 + 2 octets: three parts
    const { body } = await originate({ source: '447700900123', destination: '447700100100', text, order: 'reverse', reference: 0x42 });
    expect(body).toMatchObject({ encoding: 'ucs2', dataCoding: 8, concatenation: 'udh8', reference: 0x42 });
    expect(body.deliveries.map((d) => d.part)).toEqual([3, 2, 1]);

    const pdus = await received(client, 3);
    expect(pdus.map((p) => [p.esm_class, p.data_coding])).toEqual([[0x40, 8], [0x40, 8], [0x40, 8]]);
    expect(pdus.map((p) => hex(p.short_message.udh))).toEqual([['0003420303'], ['0003420302'], ['0003420301']]);
    // The natural split keeps the emoji's surrogate pair in one part, so each part decodes alone.
    expect(pdus.map((p) => p.short_message.message).reverse().join('')).toBe(text);
    expect(pdus.map((p) => p.short_message.message).some((part) => part.includes('😀'))).toBe(true);
  });

  it('carries the concatenation in SAR TLVs when asked, with a 16-bit reference', async () => {
    const client = await esme();
    const { body } = await originate({ source: '447700900123', destination: '447700100100', text: 'a'.repeat(200), concatenation: 'sar', reference: 0x1234 });
    expect(body.parts.map((p) => p.sar)).toEqual([{ reference: 0x1234, total: 2, sequence: 1 }, { reference: 0x1234, total: 2, sequence: 2 }]);

    const pdus = await received(client, 2);
    expect(pdus.map((p) => [p.esm_class, p.sar_msg_ref_num, p.sar_total_segments, p.sar_segment_seqnum, p.short_message.message.length])).toEqual([
      [0, 0x1234, 2, 1, 153],
      [0, 0x1234, 2, 2, 47],
    ]);
  });

  it('puts a surrogate pair across parts when "parts" forces the split, and sends a part twice when asked', async () => {
    const client = await esme();
    const { body } = await originate({ source: '447700900123', destination: '447700100100', text: 'ab😀cd', parts: 2, concatenation: 'udh16', duplicate: 2 });
    expect(body.parts.map((p) => p.shortMessage)).toEqual(['060804' + body.reference!.toString(16).padStart(4, '0') + '0201' + '00610062d83d', expect.stringMatching(/de0000630064$/)]);
    expect(body.deliveries.map((d) => [d.part, d.reason])).toEqual([[1, 'first'], [2, 'first'], [2, 'duplicate']]);
    const pdus = await received(client, 3);
    expect(new Set(pdus.map((p) => p.sequence_number)).size).toBe(3);
  });

  it('with loseFirstResponse, ignores the first answer and sends the same deliver_sm again under a new sequence number', async () => {
    const client = await esme();
    const { body } = await originate({ source: '447700900123', destination: '447700100100', text: 'YES', loseFirstResponse: true, resendAfterMs: 100 });
    const [first, again] = await received(client, 2);
    expect(again?.short_message.message).toBe('YES');
    expect(again?.sequence_number).not.toBe(first?.sequence_number);

    await waitUntil(async () => (await inbound(body.id)).acknowledged);
    const view = await inbound(body.id);
    expect(view.deliveries.map((d) => [d.reason, d.sequenceNumber, d.response?.status, d.response?.lost])).toEqual([
      ['first', first?.sequence_number, 0, true],
      ['resend', again?.sequence_number, 0, false],
    ]);
    expect(Date.parse(view.deliveries[1]!.sentAt) - Date.parse(view.deliveries[0]!.sentAt)).toBeGreaterThanOrEqual(90);
  });

  it('goes round robin over the sessions that can receive, and keeps receipts working beside it', async () => {
    const transmitter = await esme('transmitter');
    const [a, b] = [await esme('receiver'), await esme('transceiver')];
    const first = (await originate({ source: '447700900123', destination: '447700100100', text: 'one' })).body;
    const second = (await originate({ source: '447700900123', destination: '447700100100', text: 'two' })).body;
    expect([first.deliveries[0]?.session.bindType, second.deliveries[0]?.session.bindType].sort()).toEqual(['receiver', 'transceiver']);

    expect((await transmitter.submit({ destination_addr: '447700900999', short_message: 'hi', registered_delivery: 1 })).command_status).toBe(0);
    await waitUntil(async () => (await getJson<{ receiptsAcked: number }>(simulator.httpPort, '/stats')).body.receiptsAcked === 1);
    await waitUntil(async () => (await inbound(first.id)).acknowledged && (await inbound(second.id)).acknowledged);
    expect(a.deliveries.length + b.deliveries.length).toBe(3);
  });

  it('answers 409 when no session can receive, and 400 naming every problem of a bad body', async () => {
    await esme('transmitter');
    const none = await originate({ source: '447700900123', destination: '447700100100', text: 'STOP' });
    expect(none).toEqual({ status: 409, body: { error: 'no session is bound as receiver or transceiver' } });

    const bad = await originate({ source: '', text: 'ж', encoding: 'gsm8', colour: 'red' });
    expect(bad.status).toBe(400);
    expect(bad.body.problems).toEqual(['unknown key colour', expect.stringMatching(/^source/), expect.stringMatching(/^destination/), expect.stringMatching(/^encoding/)]);
    const unencodable = await originate({ source: '447700900123', destination: '447700100100', text: 'ж', encoding: 'gsm7' });
    expect(unencodable.body).toEqual({ error: 'invalid inbound message', problems: ['not in the GSM 7-bit alphabet: ж'] });
  });
});

describe('GET and DELETE /inbound', () => {
  it('lists what was originated, finds one by id, and forgets them all', async () => {
    await esme();
    const { body } = await originate({ source: '447700900123', destination: '447700100100', text: 'STOP' });
    const list = await getJson<{ count: number; inbound: InboundView[] }>(simulator.httpPort, '/inbound');
    expect(list.body).toMatchObject({ count: 1, inbound: [{ id: body.id, text: 'STOP' }] });
    expect((await getJson(simulator.httpPort, '/inbound/mo-999')).status).toBe(404);
    expect((await getJson(simulator.httpPort, '/inbound', { method: 'DELETE' })).body).toEqual({ deleted: 1 });
    expect((await getJson(simulator.httpPort, '/inbound')).body).toEqual({ count: 0, inbound: [] });
    expect((await getJson(simulator.httpPort, '/inbound', { method: 'PUT' })).status).toBe(405);
  });
});
