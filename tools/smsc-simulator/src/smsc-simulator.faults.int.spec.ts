import { networkInterfaces } from 'node:os';
import type { MessageView } from './message-store';
import { startSimulator, type RunningSimulator } from './simulator';
import { TestEsme, getJson, putConfig, waitUntil } from './smpp-esme.test-helpers';

// The faults a test switches on through the inspection API to break a carrier mid-batch, against
// the npm `smpp` library as the ESME over real TCP. One simulator per test, as in
// smsc-simulator.int.spec.ts.

let simulator: RunningSimulator;
let esmes: TestEsme[];

async function esme(type?: 'transceiver' | 'receiver'): Promise<TestEsme> {
  const client = type ? await TestEsme.bound(simulator.smppPort, type) : await TestEsme.connect(simulator.smppPort);
  esmes.push(client);
  return client;
}
const stats = async () => (await getJson<Record<string, number>>(simulator.httpPort, '/stats')).body;
const stored = async () => (await getJson<{ messages: MessageView[] }>(simulator.httpPort, '/messages')).body.messages;
const dropSessions = (query = '') => getJson<{ dropped: number; refuseBindsUntil?: string }>(simulator.httpPort, `/sessions/drop${query}`, { method: 'POST' });
const sms = (destination: string) => ({ destination_addr: destination, short_message: `to ${destination}` });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeEach(async () => {
  esmes = [];
  simulator = await startSimulator({ host: '127.0.0.1', smppPort: 0, httpPort: 0, logLevel: 'silent', receiptDelayMs: 20 });
});
afterEach(async () => {
  await Promise.all(esmes.map((e) => e.disconnect()));
  await simulator.stop();
});

describe('refusing binds', () => {
  it('answers every bind ESME_RBINDFAIL while refuseBinds is set, and leaves bound sessions alone', async () => {
    const bound = await esme('transceiver');
    await putConfig(simulator.httpPort, { refuseBinds: true });
    const client = await esme();
    expect((await client.bind('transceiver')).command_status).toBe(0x0d);
    expect((await client.bind('transmitter')).command_status).toBe(0x0d);
    expect((await bound.submit(sms('447700900201'))).command_status).toBe(0);
    expect(await stats()).toMatchObject({ bindsRefused: 2, bindFailures: 0, binds: 1 });

    await putConfig(simulator.httpPort, { refuseBinds: false });
    expect((await client.bind('transceiver')).command_status).toBe(0);
  });
});

describe('errors on submit_sm', () => {
  it('answers every submit_sm ESME_RTHROTTLED while throttleAll is set, storing none', async () => {
    const client = await esme('transceiver');
    await putConfig(simulator.httpPort, { throttleAll: true });
    const statuses = await client.submitPipelined(5, 5, (i) => sms(`44770090030${i}`));
    expect(statuses).toEqual(new Array(5).fill(0x58));
    expect(await stats()).toMatchObject({ throttled: 5, accepted: 0, messagesStored: 0 });

    await putConfig(simulator.httpPort, { throttleAll: false });
    expect((await client.submit(sms('447700900310'))).command_status).toBe(0);
  });

  it('answers the configured status at temporaryErrorProbability 1, ESME_RSYSERR unless told otherwise', async () => {
    const client = await esme('transceiver');
    await putConfig(simulator.httpPort, { temporaryErrorProbability: 1, rejectPrefixes: ['1555'] });
    expect((await client.submit(sms('447700900401'))).command_status).toBe(0x08);
    await putConfig(simulator.httpPort, { temporaryErrorStatus: '0x00000045' });
    expect((await client.submit(sms('447700900402'))).command_status).toBe(0x45);
    // A rejected prefix is refused the same way every time, temporary errors or not.
    expect((await client.submit(sms('15550001'))).command_status).toBe(0x0b);
    expect(await stats()).toMatchObject({ temporaryErrors: 2, rejected: 1, accepted: 0, messagesStored: 0 });

    await putConfig(simulator.httpPort, { temporaryErrorProbability: 0 });
    expect((await client.submit(sms('447700900403'))).command_status).toBe(0);
  });
});

describe('storing only what was answered', () => {
  it('stores a delayed submit_sm when it is answered, and never one whose ESME left before the answer', async () => {
    await putConfig(simulator.httpPort, { submitDelayMs: 300 });
    const client = await esme('transceiver');
    const answered = client.submit(sms('447700900501'));
    await waitUntil(async () => (await stats()).submits === 1);
    expect(await stats()).toMatchObject({ accepted: 0, messagesStored: 0 });
    expect((await answered).command_status).toBe(0);
    expect((await stored()).map((m) => m.destination)).toEqual(['447700900501']);

    const leaving = client.submit(sms('447700900502'));
    await waitUntil(async () => (await stats()).submits === 2);
    await client.disconnect();
    await expect(leaving).rejects.toThrow('connection closed');
    await sleep(400);
    expect((await stored()).map((m) => m.destination)).toEqual(['447700900501']);
    expect(await stats()).toMatchObject({ accepted: 1, unanswered: 1 });
  });
});

describe('POST /sessions/drop', () => {
  it('whenHeld waits until that many submit_sm are held, then drops them unanswered', async () => {
    const client = await esme('transceiver');
    await putConfig(simulator.httpPort, { submitDelayMs: 300 });
    const drop = dropSessions('?whenHeld=2');
    await sleep(50);
    const first = client.submit(sms('447700900611'));
    await sleep(50);
    expect((await stats()).sessionsDropped).toBe(0); // one held: still waiting
    const second = client.submit(sms('447700900612'));
    expect(await drop).toEqual({ status: 200, body: { dropped: 1 } });
    await expect(first).rejects.toThrow('connection closed');
    await expect(second).rejects.toThrow('connection closed');
    expect(await stats()).toMatchObject({ accepted: 0, unanswered: 2, submitsHeld: 0 });
  });

  it('closes every connection at once; submit_sm in progress are neither answered nor stored', async () => {
    const client = await esme('transceiver');
    const receiver = await esme('receiver');
    expect((await client.submit(sms('447700900601'))).command_status).toBe(0);
    await putConfig(simulator.httpPort, { submitDelayMs: 500 });
    const inProgress = [client.submit(sms('447700900602')), client.submit(sms('447700900603')), client.submit(sms('447700900604'))];
    await waitUntil(async () => (await stats()).submits === 4);

    expect(await dropSessions()).toEqual({ status: 200, body: { dropped: 2 } });
    for (const submit of inProgress) await expect(submit).rejects.toThrow('connection closed');
    await Promise.all([client.whenClosed, receiver.whenClosed]);
    await waitUntil(async () => (await stats()).sessions === 0);
    await sleep(600); // past the submit delay: nothing held may surface late
    expect((await stored()).map((m) => m.destination)).toEqual(['447700900601']);
    expect(await stats()).toMatchObject({ accepted: 1, unanswered: 3, sessionsDropped: 2, messagesStored: 1 });

    // Without refuseBindsMs the carrier takes binds again at once.
    await putConfig(simulator.httpPort, { submitDelayMs: 0 });
    const again = await esme('transceiver');
    expect((await again.submit(sms('447700900605'))).command_status).toBe(0);
  });

  it('refuses binds for refuseBindsMs, then takes them again', async () => {
    const client = await esme('transceiver');
    const startedAt = Date.now();
    const { body } = await dropSessions('?refuseBindsMs=400');
    expect(body).toEqual({ dropped: 1, refuseBindsUntil: expect.any(String) });
    expect(Date.parse(body.refuseBindsUntil!)).toBeGreaterThanOrEqual(startedAt + 400);
    await client.whenClosed;

    const retrying = await esme();
    expect((await retrying.bind('transceiver')).command_status).toBe(0x0d);
    expect((await stats()).bindRefusalRemainingMs).toBeGreaterThan(0);
    await waitUntil(async () => (await retrying.bind('transceiver')).command_status === 0);
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(390);
    expect(await stats()).toMatchObject({ bindRefusalRemainingMs: 0, sessionsDropped: 1, binds: 2 });
    expect((await stats()).bindsRefused).toBeGreaterThanOrEqual(2);
  });

  it('ends a timed refusal early when refuseBinds is set to false, and checks its query', async () => {
    expect(await dropSessions('?refuseBindsMs=60000')).toMatchObject({ status: 200, body: { dropped: 0 } });
    const client = await esme();
    expect((await client.bind('transceiver')).command_status).toBe(0x0d);
    await putConfig(simulator.httpPort, { refuseBinds: false });
    expect((await client.bind('transceiver')).command_status).toBe(0);

    expect((await dropSessions('?refuseBindsMs=soon')).status).toBe(400);
    expect((await dropSessions('?refuseBindsMs=86400001')).status).toBe(400);
    expect((await getJson(simulator.httpPort, '/sessions/drop')).status).toBe(405);
    expect(client.closed).toBe(false);
  });
});

describe('listeners', () => {
  it('serves the inspection API on 127.0.0.1 by default, even when SMPP listens on every interface', async () => {
    const open = await startSimulator({ host: '0.0.0.0', smppPort: 0, httpPort: 0, logLevel: 'silent' });
    try {
      expect(open).toMatchObject({ smppAddress: '0.0.0.0', httpAddress: '127.0.0.1' });
      expect((await getJson(open.httpPort, '/health')).status).toBe(200);
      const external = Object.values(networkInterfaces()).flat().find((i) => i && i.family === 'IPv4' && !i.internal);
      if (external) await expect(fetch(`http://${external.address}:${open.httpPort}/health`)).rejects.toThrow();
    } finally {
      await open.stop();
    }
  });
});
