import type { InboundView } from './inbound-routes';
import { INBOUND_RETRY_DELAY_MS } from './inbound-dispatcher';
import { startSimulator, type RunningSimulator } from './simulator';
import { TestEsme, getJson, waitUntil, type LibPdu } from './smpp-esme.test-helpers';

// An inbound SMS the ESME does not acknowledge is sent again, as by a real SMSC: over real TCP, the
// npm `smpp` library as the ESME (see smsc-simulator.inbound.int.spec.ts).

interface LibDeliverSm extends LibPdu {
  short_message: { message: string };
}

let simulator: RunningSimulator;
let esmes: TestEsme[];

async function esme(): Promise<TestEsme> {
  const client = await TestEsme.bound(simulator.smppPort, 'transceiver');
  esmes.push(client);
  return client;
}
const post = <T>(body: Record<string, unknown>) =>
  getJson<T>(simulator.httpPort, '/inbound', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const originate = async (body: Record<string, unknown>) => (await post<InboundView>({ source: '447700900123', destination: '447700100100', ...body })).body;
const inbound = async (id: string) => (await getJson<InboundView>(simulator.httpPort, `/inbound/${id}`)).body;
const reasons = (view: InboundView) => view.deliveries.map((d) => [d.reason, d.session.id, d.response?.status ?? null]);

beforeEach(async () => {
  esmes = [];
  simulator = await startSimulator({ host: '127.0.0.1', smppPort: 0, httpPort: 0, logLevel: 'silent', inboundResponseTimeoutMs: 10_000 });
});
afterEach(async () => {
  await Promise.all(esmes.map((e) => e.disconnect()));
  await simulator.stop();
});

describe('redelivery of inbound SMS', () => {
  it('sends a deliver_sm whose session closed before its answer again on the next bind, same octets, new sequence number', async () => {
    const gone = await esme();
    gone.acknowledge = false;
    const sent = await originate({ text: 'Where is my order?' });
    await gone.waitForDeliveries(1);
    await gone.disconnect();
    await waitUntil(async () => (await getJson<{ inboundQueued: number }>(simulator.httpPort, '/stats')).body.inboundQueued === 1);

    const back = await esme();
    const [again] = (await back.waitForDeliveries(1)) as unknown as LibDeliverSm[];
    expect(again?.short_message.message).toBe('Where is my order?');
    await waitUntil(async () => (await inbound(sent.id)).acknowledged);
    const view = await inbound(sent.id);
    expect(reasons(view)).toEqual([['first', 1, null], ['redelivery', 2, 0]]);
    expect(view.deliveries[1]?.sequenceNumber).toBe(again?.sequence_number);
    const stats = (await getJson<Record<string, number>>(simulator.httpPort, '/stats')).body;
    expect(stats).toMatchObject({ inboundSent: 2, inboundRedelivered: 1, inboundQueued: 0, inboundAwaitingResponse: 0 });
  });

  it('sends again after inboundResponseTimeoutMs without an answer (PUT /config), on the same bound session', async () => {
    expect((await getJson(simulator.httpPort, '/config', { method: 'PUT', body: JSON.stringify({ inboundResponseTimeoutMs: 300 }) })).status).toBe(200);
    const client = await esme();
    client.acknowledge = false;
    const sent = await originate({ text: 'slow' });
    await client.waitForDeliveries(2);
    client.acknowledge = true;
    await waitUntil(async () => (await inbound(sent.id)).acknowledged, 5000);
    const view = await inbound(sent.id);
    expect(view.deliveries.slice(0, 2).map((d) => [d.reason, d.response])).toEqual([['first', null], ['redelivery', null]]);
    expect(Date.parse(view.deliveries[1]!.sentAt) - Date.parse(view.deliveries[0]!.sentAt)).toBeGreaterThanOrEqual(290);
  });

  it('tries a part answered with an error again after a short delay', async () => {
    const client = await esme();
    client.answerStatus = 0x08;
    const sent = await originate({ text: 'try again' });
    await client.waitForDeliveries(1);
    client.answerStatus = 0;
    await waitUntil(async () => (await inbound(sent.id)).acknowledged, 5000);
    const view = await inbound(sent.id);
    expect(reasons(view)).toEqual([['first', 1, 8], ['redelivery', 1, 0]]);
    expect(Date.parse(view.deliveries[1]!.sentAt) - Date.parse(view.deliveries[0]!.sentAt)).toBeGreaterThanOrEqual(INBOUND_RETRY_DELAY_MS - 10);
  });
});

describe('POST /inbound with count', () => {
  it('sends n numbered messages as the window allows, spread over the sessions, and answers with the id range', async () => {
    await getJson(simulator.httpPort, '/config', { method: 'PUT', body: JSON.stringify({ window: 10 }) });
    const [a, b] = [await esme(), await esme()];
    const { status, body } = await post<{ count: number; firstId: string; lastId: string }>({ source: '447700900123', destination: '447700100100', text: 'bulk {i} of 500', count: 500 });
    expect(status).toBe(201);
    expect(body).toEqual({ count: 500, firstId: expect.stringMatching(/^mo-\d+$/), lastId: expect.stringMatching(/^mo-\d+$/) });
    expect(Number(body.lastId.slice(3)) - Number(body.firstId.slice(3))).toBe(499);
    await waitUntil(() => a.deliveries.length + b.deliveries.length === 500);
    const texts = [...a.deliveries, ...b.deliveries].map((d) => d.short_message.message);
    expect(new Set(texts).size).toBe(500);
    expect(texts).toContain('bulk 500 of 500');
    expect(a.deliveries.length).toBeGreaterThan(100);
    expect(b.deliveries.length).toBeGreaterThan(100);
    await waitUntil(async () => (await getJson<{ inboundAwaitingResponse: number }>(simulator.httpPort, '/stats')).body.inboundAwaitingResponse === 0);
  });

  it('answers 400 for a bad count and 409 without a receiver, sending nothing', async () => {
    const bad = await post<{ problems: string[] }>({ source: '447700900123', destination: '447700100100', text: 'x', count: 0 });
    expect(bad.status).toBe(400);
    expect(bad.body.problems).toEqual([expect.stringMatching(/^count/)]);
    expect((await post({ source: '447700900123', destination: '447700100100', text: 'x', count: 3 })).status).toBe(409);
    expect((await getJson<{ count: number }>(simulator.httpPort, '/inbound')).body.count).toBe(0);
  });
});
