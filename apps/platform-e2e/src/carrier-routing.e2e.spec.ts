import { eventually } from '@seed/platform-testing';
import { busiestWindow, germanMobile, routing, secondSimulator, untilBound } from './support/carriers';
import { sendBatch, ukMobile, type Account } from './support/http';
import { getMessage } from './support/sms-read';
import { smsc } from './support/smsc';
import { useStack } from './support/stack';

const BIG = 10_000;

/**
 * Two carriers against two simulators: `default` (SMPP_URL, the first simulator) and `b` (the
 * second, registered through the admin API). Routes are changed through the admin API between
 * tests; every replica applies a change within a tick (CARRIER_TICK_MS).
 */
describe('routing over two carriers', () => {
  const ctx = useStack({ SMSC_INSTANCES: '2', SMSC_PORT_STEP: '2', CARRIER_TICK_MS: '500', SMSC_RECEIPT_DELAY_MS: '20' });
  // Destinations: ukMobile(n) is a valid number for n below 300,000 only.
  let account: Account;
  let simA: ReturnType<typeof smsc>;
  let simB: ReturnType<typeof smsc>;
  let api: ReturnType<typeof routing>;

  beforeAll(async () => {
    const { stack } = ctx;
    account = await stack.createAccount();
    api = routing(stack);
    const second = secondSimulator(stack);
    simA = smsc(stack.smscUrl);
    simB = smsc(second.httpUrl);
    await api.putCarrier('b', { url: second.smppUrl, binds: 1, window: 100 });
    await untilBound(second.httpUrl);
  });

  beforeEach(async () => {
    await api.clearRoutes();
    for (const url of [ctx.stack.smscUrl, secondSimulator(ctx.stack).httpUrl]) await fetch(`${url}/messages`, { method: 'DELETE' });
  });

  /** Waits until every message of a batch is in a final state in the read model; returns the counts by state. */
  async function settled(batchId: string, total: number, timeoutMs = 120_000): Promise<Record<string, number>> {
    return eventually(
      async () => {
        const rows = await ctx.db.query<{ state: string; n: number }>(`SELECT state, count(*)::int AS n FROM ${ctx.db.table('messages')} WHERE batch_id = $1 GROUP BY state`, [batchId]);
        const counts = Object.fromEntries(rows.map((r) => [r.state, r.n]));
        return (counts['delivered'] ?? 0) + (counts['undelivered'] ?? 0) === total ? counts : undefined;
      },
      timeoutMs,
      250,
    );
  }

  /** How many times each destination reached each simulator. */
  async function arrivals(): Promise<{ a: Map<string, number>; b: Map<string, number> }> {
    const count = (messages: { destination: string }[]) => messages.reduce((m, { destination }) => m.set(destination, (m.get(destination) ?? 0) + 1), new Map<string, number>());
    return { a: count(await simA.all()), b: count(await simB.all()) };
  }

  it('routes by destination prefix: UK numbers to b, the rest to default, each decision in the history', async () => {
    await api.putRoute('uk', { position: 1, match: { prefixes: ['44'] }, mode: 'failover', carriers: [{ carrierId: 'b' }], price: { amount: '0.021', currency: 'GBP' } });
    await api.putRoute('rest', { position: 2, match: {}, mode: 'failover', carriers: [{ carrierId: 'default' }] });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const uk = Array.from({ length: 20 }, (_, i) => ukMobile(1000 + i));
    const de = Array.from({ length: 20 }, (_, i) => germanMobile(1000 + i));
    const batch = await sendBatch(ctx.stack, account, { template: { text: 'Routed' }, messages: [...uk, ...de].map((destination) => ({ destination })), includeMessagesInResponse: true });
    expect(await settled(batch.batchId, 40)).toEqual({ delivered: 40 });
    const { a, b } = await arrivals();
    expect([...b.keys()].sort()).toEqual(uk.sort());
    expect([...a.keys()].sort()).toEqual(de.sort());
    const first = batch.messages?.[0];
    const view = await getMessage(ctx.stack, account, first?.umid as string);
    expect(view.history.filter((h) => h.event === 'MessageRouted')).toEqual([
      expect.objectContaining({ carrierId: 'b', detail: 'routed to carrier b by route uk, attempt 1' }),
    ]);
    const routed = await ctx.db.query<{ data: Record<string, unknown> }>(`SELECT data FROM ${ctx.db.table('events')} WHERE type = 'MessageRouted' AND data->>'umid' = $1`, [first?.umid]);
    expect(routed[0]?.data).toMatchObject({ routeId: 'uk', carrierId: 'b', attempt: 1, outcome: 'handed-off', price: { amount: '0.021', currency: 'GBP' } });
  });

  it('ends a message no route takes as undelivered with NO_ROUTE, and sends it nowhere', async () => {
    await api.putRoute('uk-only', { position: 1, match: { countries: ['GB'] }, mode: 'failover', carriers: [{ carrierId: 'b' }] });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const batch = await sendBatch(ctx.stack, account, { template: { text: 'Nowhere' }, messages: [{ destination: germanMobile(7) }], includeMessagesInResponse: true });
    expect(batch.messages?.[0]?.status.code).toBe('QUEUED');
    expect(await settled(batch.batchId, 1)).toEqual({ undelivered: 1 });
    const view = await getMessage(ctx.stack, account, batch.messages?.[0]?.umid as string);
    expect(view.status).toMatchObject({ state: 'undelivered', errorCode: 'NO_ROUTE' });
    const { a, b } = await arrivals();
    expect(a.size + b.size).toBe(0);
  });

  it("re-routes a permanent refusal the carrier lists in rerouteOnErrors, and ends one it does not list", async () => {
    const second = secondSimulator(ctx.stack);
    await api.putCarrier('b', { url: second.smppUrl, binds: 1, window: 100, rerouteOnErrors: ['0x0000000b'] });
    await api.putRoute('b-first', { position: 1, match: { prefixes: ['447911'] }, mode: 'failover', carriers: [{ carrierId: 'b' }, { carrierId: 'default' }] });
    await api.putRoute('rest', { position: 2, match: {}, mode: 'failover', carriers: [{ carrierId: 'default' }] });
    // b refuses these destinations with ESME_RINVDSTADR (0x0B); default refuses the German one the same way.
    await simB.configure({ rejectPrefixes: ['447911'] });
    await simA.configure({ rejectPrefixes: ['49151'] });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    try {
      const batch = await sendBatch(ctx.stack, account, {
        template: { text: 'Refused' },
        messages: [{ destination: ukMobile(5000) }, { destination: germanMobile(5000) }],
        includeMessagesInResponse: true,
      });
      // Within seconds: a message failed over is due again at once (not after its lease).
      expect(await settled(batch.batchId, 2, 10_000)).toEqual({ delivered: 1, undelivered: 1 });
      const [moved, ended] = await Promise.all((batch.messages ?? []).map((m) => getMessage(ctx.stack, account, m.umid)));
      expect(moved?.status.state).toBe('delivered');
      expect(moved?.history.filter((h) => h.event === 'MessageRouted').map((h) => h.carrierId)).toEqual(['b', 'default']);
      expect(ended?.status).toMatchObject({ state: 'undelivered', errorCode: '0x0000000B' });
    } finally {
      await simB.configure({ rejectPrefixes: [] });
      await simA.configure({ rejectPrefixes: [] });
      await api.putCarrier('b', { url: second.smppUrl, binds: 1, window: 100 });
    }
  });

  it('splits a weighted route 70/30 over 10,000 messages within 3 points', async () => {
    await api.putRoute('split', { position: 1, match: {}, mode: 'weighted', carriers: [{ carrierId: 'default', weight: 70 }, { carrierId: 'b', weight: 30 }] });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const batch = await sendBatch(ctx.stack, account, { template: { text: 'Split' }, messages: Array.from({ length: BIG }, (_, i) => ({ destination: ukMobile(100_000 + i) })) });
    expect(await settled(batch.batchId, BIG)).toEqual({ delivered: BIG });
    const { a, b } = await arrivals();
    expect(a.size + b.size).toBe(BIG);
    expect(Math.abs(a.size / BIG - 0.7)).toBeLessThan(0.03);
  });

  it("fails over when default's sessions drop mid-batch: every message delivered, none at both carriers, same umids", async () => {
    await api.putRoute('all', { position: 1, match: {}, mode: 'failover', carriers: [{ carrierId: 'default' }, { carrierId: 'b' }] });
    // Submits held 30 ms at default, so a window of them can be on the wire when its sessions drop.
    await simA.configure({ submitDelayMs: 30 });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    try {
      const destinations = Array.from({ length: BIG }, (_, i) => ukMobile(200_000 + i));
      const batch = await sendBatch(ctx.stack, account, { template: { text: 'Failover' }, messages: destinations.map((destination) => ({ destination })) });
      await eventually(async () => ((await simA.stats()).accepted >= 2000 ? true : undefined), 60_000, 20);
      // Dropped while submits are held at default: they are on the wire, unanswered, when it goes.
      const drop = await fetch(`${ctx.stack.smscUrl}/sessions/drop?refuseBindsMs=8000&whenHeld=10`, { method: 'POST' });
      const droppedAt = Date.now();
      expect(drop.status).toBe(200);
      expect(await settled(batch.batchId, BIG, 180_000)).toEqual({ delivered: BIG });
      const { a, b } = await arrivals();
      // None submitted twice: each destination reached exactly one carrier, once.
      expect(a.size + b.size).toBe(BIG);
      expect([...a.values(), ...b.values()].every((n) => n === 1)).toBe(true);
      expect([...a.keys()].filter((d) => b.has(d))).toEqual([]);
      expect(b.size).toBeGreaterThan(0);
      // b took traffic within 5 s of the failure.
      const firstAtB = Math.min(...(await simB.all()).map((m) => Date.parse(m.receivedAt)));
      expect(firstAtB - droppedAt).toBeLessThan(5000);
      // Messages on the wire at the drop moved on with their umid: a failed-over decision, then a hand-off to b.
      const moved = await ctx.db.query<{ umid: string }>(
        `SELECT data->>'umid' AS umid FROM ${ctx.db.table('events')} WHERE type = 'MessageRouted' AND data->>'outcome' = 'failed-over' AND data->>'batchId' = $1`,
        [batch.batchId],
      );
      expect(moved.length).toBeGreaterThan(0);
      const view = await getMessage(ctx.stack, account, moved[0]?.umid as string);
      expect(view.history.filter((h) => h.event === 'MessageRouted').map((h) => h.carrierId)).toEqual(['default', 'b']);
      expect(view.status.state).toBe('delivered');
    } finally {
      await simA.configure({ submitDelayMs: 0, refuseBinds: false });
    }
  });

  it('finds a hung carrier (bound, never answering) within SMPP_RESPONSE_TIMEOUT_MS and fails over; what it may still deliver twice is at most its window', async () => {
    await api.putRoute('all', { position: 1, match: {}, mode: 'failover', carriers: [{ carrierId: 'default' }, { carrierId: 'b' }] });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const total = 2000;
    try {
      // default stops answering but keeps (and delivers) every submit_sm it gets: the worst hung carrier.
      await simA.configure({ answerSubmits: false });
      const hungAt = Date.now();
      const batch = await sendBatch(ctx.stack, account, { template: { text: 'Hung' }, messages: Array.from({ length: total }, (_, i) => ({ destination: ukMobile(250_000 + i) })) });
      expect(await settled(batch.batchId, total, 120_000)).toEqual({ delivered: total });
      const firstAt = async (sim: typeof simA) => Math.min(...(await sim.all()).map((m) => Date.parse(m.receivedAt)));
      const [firstAtA, firstAtB] = [await firstAt(simA), await firstAt(simB)];
      const { a, b } = await arrivals();
      const twice = [...a.keys()].filter((d) => b.has(d)).length;
      const stats = await simA.stats();
      console.log(
        `hung carrier: first message at b ${firstAtB - firstAtA} ms after the first unanswered submit at default (${firstAtB - hungAt} ms after the request);` +
          ` ${a.size} submit_sm kept by default unanswered, ${twice} of them also sent by b (SMPP_WINDOW 100, one bind; ${stats.binds} binds again)`,
      );
      // SMPP_RESPONSE_TIMEOUT_MS (5 s), then a failover decision and a submit to b.
      expect(firstAtB - firstAtA).toBeLessThan(5000 + 1500);
      expect(a.size + b.size - twice).toBe(total);
      expect(b.size).toBe(total);
      // Only what was on the wire when a wait ran out: a window for the session it had and each it bound again.
      expect(twice).toBe(a.size);
      expect(twice).toBeLessThanOrEqual(100 * (1 + stats.binds));
    } finally {
      await simA.configure({ answerSubmits: true });
    }
  });

  it('holds a carrier to its maxPerSecond', async () => {
    await api.putCarrier('b', { url: secondSimulator(ctx.stack).smppUrl, binds: 1, window: 100, maxPerSecond: 200 });
    await api.putRoute('capped', { position: 1, match: {}, mode: 'failover', carriers: [{ carrierId: 'b' }] });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await untilBound(secondSimulator(ctx.stack).httpUrl);
    const total = 3000;
    const batch = await sendBatch(ctx.stack, account, { template: { text: 'Capped' }, messages: Array.from({ length: total }, (_, i) => ({ destination: ukMobile(20_000 + i) })) });
    expect(await settled(batch.batchId, total, 60_000)).toEqual({ delivered: total });
    const times = (await simB.all()).map((m) => Date.parse(m.receivedAt)).sort((x, y) => x - y);
    expect(times).toHaveLength(total);
    // The busiest 10 s window stays within 5 % of the cap.
    const busiest = busiestWindow(times, 10_000);
    expect(busiest).toBeLessThanOrEqual(200 * 10 * 1.05);
    // And the cap is what held it: 3,000 at 200/s take about 15 s.
    expect((times.at(-1) as number) - (times[0] as number)).toBeGreaterThan(12_000);
  });
});
