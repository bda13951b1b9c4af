import { startSimulator, type RunningSimulator } from './simulator';
import { TestEsme, getJson, waitUntil } from './smpp-esme.test-helpers';

// A quick load check: counts are asserted, the rate is only printed (machines differ).
const COUNT = 5000;
const WINDOW = 100;

describe('load', () => {
  let simulator: RunningSimulator;
  let esme: TestEsme;

  beforeAll(async () => {
    simulator = await startSimulator({ host: '127.0.0.1', smppPort: 0, httpPort: 0, logLevel: 'silent' });
    esme = await TestEsme.bound(simulator.smppPort, 'transceiver');
  });
  afterAll(async () => {
    await esme.disconnect();
    await simulator.stop();
  });

  it(`answers ${COUNT} pipelined submit_sm (window ${WINDOW}) and delivers every receipt`, async () => {
    const started = performance.now();
    const statuses = await esme.submitPipelined(COUNT, WINDOW, (i) => ({
      destination_addr: `44770090${String(i).padStart(4, '0')}`,
      registered_delivery: 1,
      data_coding: 0,
      short_message: `Hello customer ${i}, your order has shipped. Track it in the app.`,
    }));
    const submitted = performance.now();
    const receipts = await esme.waitForDeliveries(COUNT, 30_000);
    const done = performance.now();

    expect(statuses.filter((s) => s === 0)).toHaveLength(COUNT);
    expect(new Set(receipts.map((r) => r.receipted_message_id)).size).toBe(COUNT);
    await waitUntil(async () => (await getJson<{ receiptsAcked: number }>(simulator.httpPort, '/stats')).body.receiptsAcked === COUNT);
    expect((await getJson<{ count: number }>(simulator.httpPort, '/messages')).body.count).toBe(COUNT);

    const rate = (n: number, ms: number) => Math.round((n * 1000) / ms);
    console.log(
      `smsc-simulator load: ${COUNT} submit_sm in ${Math.round(submitted - started)} ms (${rate(COUNT, submitted - started)}/s); ` +
        `all receipts after ${Math.round(done - started)} ms (${rate(COUNT, done - started)} messages/s end to end, receipt delay 200 ms)`,
    );
  });
});
