import type { MessageView } from './message-store';
import { startSimulator, type RunningSimulator } from './simulator';
import type { SimulatorConfig } from './simulator.config';
import { TestEsme, getJson, putConfig, waitUntil, type LibReceipt } from './smpp-esme.test-helpers';

// Real TCP on 127.0.0.1 against the npm `smpp` library as the ESME. One simulator per test, so
// receipts queued by one test never reach the next.

const RECEIPT = /^id:(\S+) sub:001 dlvrd:(\d{3}) submit date:(\d{10}) done date:(\d{10}) stat:([A-Z]{7}) err:(\d{3}) text:(.*)$/s;

let simulator: RunningSimulator;
let esmes: TestEsme[];

async function start(settings: Partial<SimulatorConfig> = {}): Promise<void> {
  simulator = await startSimulator({ host: '127.0.0.1', smppPort: 0, httpPort: 0, logLevel: 'silent', receiptDelayMs: 20, ...settings });
}
async function esme(type?: 'transceiver' | 'transmitter' | 'receiver'): Promise<TestEsme> {
  const client = type ? await TestEsme.bound(simulator.smppPort, type) : await TestEsme.connect(simulator.smppPort);
  esmes.push(client);
  return client;
}
const message = async (id: string) => (await getJson<MessageView>(simulator.httpPort, `/messages/${id}`)).body;
const stats = async () => (await getJson<Record<string, number>>(simulator.httpPort, '/stats')).body;

beforeEach(async () => {
  esmes = [];
  await start();
});
afterEach(async () => {
  await Promise.all(esmes.map((e) => e.disconnect()));
  await simulator.stop();
});

describe('binding', () => {
  it('binds a transceiver with the right system_id and password', async () => {
    const client = await esme();
    const response = await client.bind('transceiver');
    expect(response).toMatchObject({ command: 'bind_transceiver_resp', command_status: 0, system_id: 'SEEDSMSC' });
    expect(await stats()).toMatchObject({ binds: 1, sessions: 1, boundSessions: 1 });
  });

  it('refuses a wrong password or system_id with ESME_RBINDFAIL, and still accepts a good bind after', async () => {
    const client = await esme();
    expect((await client.bind('transceiver', 'seed', 'wrong')).command_status).toBe(0x0d);
    expect((await client.bind('transmitter', 'other', 'secret')).command_status).toBe(0x0d);
    expect((await client.bind('transmitter')).command_status).toBe(0);
    expect(await stats()).toMatchObject({ binds: 1, bindFailures: 2 });
  });

  it('answers ESME_RALYBND to a second bind on a bound session', async () => {
    const client = await esme('receiver');
    expect((await client.bind('transceiver')).command_status).toBe(0x05);
  });

  it('answers ESME_RINVBNDSTS to submit_sm before bind and from a receiver', async () => {
    const unbound = await esme();
    expect((await unbound.submit({ destination_addr: '447700900001', short_message: 'x' })).command_status).toBe(0x04);
    const receiver = await esme('receiver');
    expect((await receiver.submit({ destination_addr: '447700900001', short_message: 'x' })).command_status).toBe(0x04);
  });
});

describe('session', () => {
  it('answers enquire_link', async () => {
    const client = await esme('transceiver');
    expect(await client.request('enquire_link')).toMatchObject({ command: 'enquire_link_resp', command_status: 0 });
  });

  it('answers unbind with unbind_resp and closes the connection', async () => {
    const client = await esme('transceiver');
    expect(await client.request('unbind')).toMatchObject({ command: 'unbind_resp', command_status: 0 });
    await client.whenClosed;
    await waitUntil(async () => (await stats()).sessions === 0);
  });

  it('answers generic_nack ESME_RINVCMDID to an operation it does not serve', async () => {
    const client = await esme('transceiver');
    const response = await client.request('query_sm', { message_id: '1' });
    expect(response).toMatchObject({ command: 'generic_nack', command_status: 0x03 });
    expect((await client.request('enquire_link')).command_status).toBe(0);
  });
});

describe('submit_sm', () => {
  it('accepts GSM text and shows every field in the inspection API', async () => {
    const client = await esme('transceiver');
    const response = await client.submit({
      service_type: 'CMT', source_addr: 'ACME', source_addr_ton: 5, source_addr_npi: 0,
      destination_addr: '447700900123', dest_addr_ton: 1, dest_addr_npi: 1,
      data_coding: 0, short_message: 'Hi @home: 5€ {ok} [x] ~^|\\ £ é',
    });
    expect(response.command_status).toBe(0);
    const messageId = response.message_id as string;
    expect(messageId).toMatch(/^[0-9a-f]{8,}$/);
    expect(await message(messageId)).toMatchObject({
      messageId, messageIds: [messageId], systemId: 'seed', serviceType: 'CMT',
      source: 'ACME', sourceTon: 5, sourceNpi: 0, destination: '447700900123', destTon: 1, destNpi: 1,
      dataCoding: 0, esmClass: 0, registeredDelivery: 0, parts: 1, complete: true,
      text: 'Hi @home: 5€ {ok} [x] ~^|\\ £ é', receipt: null,
    });
  });

  it('reassembles a long message sent as three parts with a UDH, whatever their order', async () => {
    const client = await esme('transceiver');
    const chunks = ['A'.repeat(153), 'B'.repeat(153), 'the end'];
    const ids: string[] = [];
    for (const sequence of [1, 3, 2]) {
      const udh = Buffer.from([0x05, 0x00, 0x03, 0x7f, 3, sequence]);
      const response = await client.submit({ destination_addr: '447700900124', data_coding: 0, short_message: { udh, message: chunks[sequence - 1] } });
      expect(response.command_status).toBe(0);
      ids[sequence - 1] = response.message_id as string;
    }
    const view = await message(ids[1]!);
    expect(view).toMatchObject({ messageIds: ids, parts: 3, partsReceived: 3, complete: true, esmClass: 0x40, text: chunks.join('') });
    expect((await message(ids[2]!)).messageId).toBe(view.messageId);
  });

  it('decodes UCS-2 with an emoji (a surrogate pair)', async () => {
    const client = await esme('transceiver');
    const text = 'Привет 👋 from 東京 😀';
    const response = await client.submit({ destination_addr: '447700900125', data_coding: 8, short_message: text });
    expect(await message(response.message_id as string)).toMatchObject({ dataCoding: 8, text });
  });

  it('reads the text from message_payload', async () => {
    const client = await esme('transceiver');
    const text = 'long '.repeat(80);
    const response = await client.submit({ destination_addr: '447700900126', data_coding: 3, message_payload: text });
    expect(await message(response.message_id as string)).toMatchObject({ dataCoding: 3, text });
  });

  it('refuses destinations with a rejected prefix with ESME_RINVDSTADR', async () => {
    await putConfig(simulator.httpPort, { rejectPrefixes: ['1555'] });
    const client = await esme('transceiver');
    expect((await client.submit({ destination_addr: '+15550001', short_message: 'x' })).command_status).toBe(0x0b);
    expect((await client.submit({ destination_addr: '15560001', short_message: 'x' })).command_status).toBe(0);
  });

  it('answers ESME_RTHROTTLED above the configured rate', async () => {
    await putConfig(simulator.httpPort, { throttlePerSecond: 10 });
    const client = await esme('transceiver');
    const statuses = await client.submitPipelined(40, 40, (i) => ({ destination_addr: `4477009${i}`, short_message: 'x' }));
    const accepted = statuses.filter((s) => s === 0).length;
    expect(accepted).toBeGreaterThanOrEqual(10);
    expect(accepted).toBeLessThanOrEqual(12);
    expect(statuses.filter((s) => s === 0x58)).toHaveLength(40 - accepted);
    expect((await stats()).throttled).toBe(40 - accepted);
  });

  it('answers ESME_RMSGQFUL when the window of submit_sm in progress is full', async () => {
    await putConfig(simulator.httpPort, { window: 5, submitDelayMs: 300 });
    const client = await esme('transceiver');
    const statuses = await client.submitPipelined(12, 12, (i) => ({ destination_addr: `4477009${i}`, short_message: 'x' }));
    expect(statuses.slice(0, 5)).toEqual([0, 0, 0, 0, 0]);
    expect(statuses.slice(5)).toEqual(new Array(7).fill(0x14));
    expect((await stats()).windowFull).toBe(7);
  });

  it('drops the connection without answering at SMSC_DROP_PROBABILITY 1', async () => {
    await putConfig(simulator.httpPort, { dropProbability: 1 });
    const client = await esme('transceiver');
    await expect(client.submit({ destination_addr: '447700900127', short_message: 'x' })).rejects.toThrow('connection closed');
    expect(await stats()).toMatchObject({ dropped: 1, accepted: 0, sessions: 0 });
  });
});

describe('delivery receipts', () => {
  it.each([
    ['hex', /^[0-9a-f]+$/],
    ['decimal', /^\d+$/],
  ])('arrive as deliver_sm with esm_class 4, the receipt text and TLVs (%s ids)', async (format, idPattern) => {
    await putConfig(simulator.httpPort, { messageIdFormat: format });
    const client = await esme('transceiver');
    const response = await client.submit({ source_addr: 'ACME', source_addr_ton: 5, destination_addr: '447700900130', registered_delivery: 1, data_coding: 0, short_message: 'Your code is 123456. Do not share it.' });
    const messageId = response.message_id as string;
    expect(messageId).toMatch(idPattern);

    const [receipt] = (await client.waitForDeliveries(1)) as [LibReceipt];
    expect(receipt).toMatchObject({ esm_class: 4, source_addr: '447700900130', source_addr_ton: 1, destination_addr: 'ACME', dest_addr_ton: 5, receipted_message_id: messageId, message_state: 2 });
    const fields = RECEIPT.exec(receipt.short_message.message);
    expect(fields?.slice(1)).toEqual([messageId, '001', expect.any(String), expect.any(String), 'DELIVRD', '000', 'Your code is 123456.']);

    await waitUntil(async () => (await message(messageId)).receipt?.acknowledged === true);
    expect((await message(messageId)).receipt).toMatchObject({ state: 'DELIVRD', sentAt: expect.any(String) });
    expect(await stats()).toMatchObject({ receiptsSent: 1, receiptsAcked: 1 });
  });

  it('sends one receipt per part of a concatenated message, each with its own id', async () => {
    const client = await esme('transceiver');
    const ids: string[] = [];
    for (const sequence of [1, 2, 3]) {
      const udh = Buffer.from([0x06, 0x08, 0x04, 0x12, 0x34, 3, sequence]);
      ids.push((await client.submit({ destination_addr: '447700900131', registered_delivery: 1, data_coding: 0, short_message: { udh, message: `part ${sequence} `.repeat(10) } })).message_id as string);
    }
    const receipts = await client.waitForDeliveries(3);
    expect(receipts.map((r) => r.receipted_message_id).sort()).toEqual([...ids].sort());
    expect(receipts.find((r) => r.receipted_message_id === ids[1])?.short_message.message).toMatch(/text:part 2 part 2 part 2$/);
    await waitUntil(async () => (await message(ids[0]!)).receipt?.acknowledged === true);
    expect((await message(ids[0]!)).receipts.map((r) => r.messageId)).toEqual(ids);
  });

  it('reports the configured final states in the text and message_state', async () => {
    await putConfig(simulator.httpPort, { finalStates: 'UNDELIV:1' });
    const client = await esme('transceiver');
    await client.submit({ destination_addr: '447700900132', registered_delivery: 1, short_message: 'x' });
    const [receipt] = (await client.waitForDeliveries(1)) as [LibReceipt];
    expect(receipt.message_state).toBe(5);
    expect(receipt.short_message.message).toMatch(/dlvrd:000 .* stat:UNDELIV err:003 /);
  });

  it('sends a receipt on failure only when registered_delivery asks for that', async () => {
    const client = await esme('transceiver');
    const delivered = await client.submit({ destination_addr: '447700900133', registered_delivery: 2, short_message: 'x' });
    await putConfig(simulator.httpPort, { finalStates: { EXPIRED: 1 } });
    const expired = await client.submit({ destination_addr: '447700900134', registered_delivery: 2, short_message: 'x' });
    const [receipt] = (await client.waitForDeliveries(1)) as [LibReceipt];
    expect(receipt.receipted_message_id).toBe(expired.message_id);
    expect((await message(delivered.message_id as string)).receipt).toBeNull();
  });

  it('keeps receipts while the ESME is disconnected and delivers them when it binds again', async () => {
    await putConfig(simulator.httpPort, { receiptDelayMs: 300 });
    const first = await esme('transceiver');
    const response = await first.submit({ destination_addr: '447700900135', registered_delivery: 1, short_message: 'while away' });
    await first.disconnect();
    await waitUntil(async () => (await stats()).receiptsQueued === 1);
    await new Promise((r) => setTimeout(r, 400));

    const transmitter = await esme('transmitter');
    const again = await esme('receiver');
    const [receipt] = (await again.waitForDeliveries(1)) as [LibReceipt];
    expect(receipt.receipted_message_id).toBe(response.message_id);
    expect(transmitter.deliveries).toHaveLength(0);
  });

  it('sends again a receipt not acknowledged in time, including after a reconnect', async () => {
    await putConfig(simulator.httpPort, { receiptAckTimeoutMs: 200 });
    const first = await esme('transceiver');
    first.acknowledge = false;
    const response = await first.submit({ destination_addr: '447700900136', registered_delivery: 1, short_message: 'x' });
    await first.waitForDeliveries(2, 3000);
    expect(first.deliveries.map((d) => d.receipted_message_id)).toEqual([response.message_id, response.message_id]);
    await first.disconnect();

    const second = await esme('transceiver');
    const [receipt] = (await second.waitForDeliveries(1)) as [LibReceipt];
    expect(receipt.receipted_message_id).toBe(response.message_id);
    await waitUntil(async () => (await message(response.message_id as string)).receipt?.acknowledged === true);
  });
});

describe('inspection API', () => {
  it('lists, filters, finds and clears messages, and reports health and stats', async () => {
    const client = await esme('transmitter');
    const before = new Date().toISOString();
    await client.submit({ destination_addr: '111', short_message: 'one' });
    await client.submit({ destination_addr: '222', short_message: 'two' });

    expect((await getJson(simulator.httpPort, '/health')).body).toEqual({ status: 'ok' });
    expect((await getJson(simulator.httpPort, '/health/ready')).status).toBe(200);
    const all = (await getJson<{ count: number; messages: MessageView[] }>(simulator.httpPort, '/messages')).body;
    expect(all.messages.map((m) => m.text)).toEqual(['one', 'two']);
    const filtered = (await getJson<{ messages: MessageView[] }>(simulator.httpPort, `/messages?destination=222&since=${encodeURIComponent(before)}`)).body;
    expect(filtered.messages.map((m) => m.destination)).toEqual(['222']);
    expect((await getJson(simulator.httpPort, `/messages?since=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).body).toEqual({ count: 0, matched: 0, messages: [] });
    expect((await getJson(simulator.httpPort, '/messages?limit=1')).body).toMatchObject({ count: 1, matched: 2 });
    expect((await getJson(simulator.httpPort, '/messages/nope')).status).toBe(404);
    expect((await getJson(simulator.httpPort, '/messages?since=yesterday')).status).toBe(400);
    expect(await stats()).toMatchObject({ submits: 2, accepted: 2, messagesStored: 2, sessions: 1 });

    expect((await getJson(simulator.httpPort, '/messages', { method: 'DELETE' })).body).toEqual({ deleted: 2 });
    expect(await stats()).toMatchObject({ submits: 0, messagesStored: 0 });
  });

  it('shows and changes the settings, refusing bad ones', async () => {
    const shown = (await getJson<Record<string, unknown>>(simulator.httpPort, '/config')).body;
    expect(shown).toMatchObject({ systemId: 'seed', password: '[redacted]', window: 100 });
    expect(await putConfig(simulator.httpPort, { window: 7 })).toMatchObject({ status: 200, body: { window: 7 } });
    const refused = await putConfig(simulator.httpPort, { window: 0, smppPort: 1 });
    expect(refused).toMatchObject({ status: 400, body: { problems: ['smppPort: fixed once the simulator has started'] } });
    expect((await getJson(simulator.httpPort, '/config', { method: 'PUT', body: '{' })).status).toBe(400);
  });
});

describe('the smpp library, as the platform will use it', () => {
  it('labels GSM-encoded text data_coding 1 (IA5) when data_coding is left out', async () => {
    const client = await esme('transceiver');
    const response = await client.submit({ destination_addr: '447700900140', short_message: 'mail me@example.com $5' });
    // The library picks its "ASCII" encoder, which writes GSM 03.38 septets ('@' = 0x00,
    // '$' = 0x02), and sets data_coding 1: an SMSC that reads IA5 sees control characters.
    expect(await message(response.message_id as string)).toMatchObject({ dataCoding: 1, text: 'mail me\u0000example.com \u00025' });
  });
});
