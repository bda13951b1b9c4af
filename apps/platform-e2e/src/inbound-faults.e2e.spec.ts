import { eventually } from '@seed/platform-testing';
import { request, ukMobile, type Account } from './support/http';
import { useProcesses } from './support/processes';
import { smscInbound, type InboundView } from './support/smsc-inbound';
import { setDefaultUrl } from './support/webhook-admin';
import { WebhookReceiver } from './support/webhook-receiver';

const MESSAGES = 20;
/** Rounds of MESSAGES until one shows a deliver_sm that sms-batch provably read and never answered (see below). */
const MAX_ROUNDS = 5;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * sms-batch dies (SIGKILL) while inbound SMS are on their way through it: the carrier (the
 * simulator) sends again what was not acknowledged once sms-batch binds again, and the customer's
 * endpoint gets every message exactly once: none lost (sms-batch answers only after recording),
 * none twice (the redelivery of one recorded before the kill is recognised as a duplicate).
 */
describe('inbound SMS across an sms-batch crash', () => {
  let receiver: WebhookReceiver;
  const ctx = useProcesses(async () => {
    receiver = await WebhookReceiver.start();
    return { WEBHOOK_ALLOWED_HOSTS: `127.0.0.1:${receiver.port}` };
  }, ['webhook-dispatcher']);
  let account: Account;
  const NUMBER = ukMobile(65_000);
  const smsc = () => smscInbound(ctx.stack.smscUrl);

  /** Texts of the inbound webhooks the receiver accepted, with how often each came. */
  const postedTexts = (): Map<string, number> => {
    const counts = new Map<string, number>();
    for (const r of receiver.accepted('/inbound')) {
      const body = JSON.parse(r.body) as { eventType: string; payload: { body: string } };
      if (body.eventType === 'inbound_message_received') counts.set(body.payload.body, (counts.get(body.payload.body) ?? 0) + 1);
    }
    return counts;
  };

  beforeAll(async () => {
    account = await ctx.stack.createAccount();
    await setDefaultUrl(ctx.stack, account.accountId, receiver.url('/inbound'));
    const res = await request(`${ctx.stack.adminUrl}/admin/v1/numbers/${NUMBER}`, { method: 'PUT', token: ctx.stack.adminToken, body: { accountId: account.accountId, subAccountId: account.subAccountId } });
    expect(res.status).toBe(200);
    // The whole path works before anything breaks (and sms-batch is bound: 409 until then).
    await eventually(async () => (await smsc().originate({ source: ukMobile(65_001), destination: NUMBER, text: 'Before the crash' }).catch(() => undefined)) && true);
    await eventually(async () => (postedTexts().has('Before the crash') ? true : undefined), 30_000);
  });
  afterAll(async () => receiver?.close());

  it('posts every inbound SMS once when sms-batch is SIGKILLed between receiving and acknowledging them', async () => {
    const texts: string[] = [];
    const unanswered: InboundView[] = [];
    const provablyRead: InboundView[] = [];
    for (let round = 1; round <= MAX_ROUNDS && provablyRead.length === 0; round++) {
      const batch = Array.from({ length: MESSAGES }, (_, i) => `Crash round ${round}, message ${i + 1}`);
      texts.push(...batch);
      const sent = await Promise.all(batch.map((text, i) => smsc().originate({ source: ukMobile(65_100 + i), destination: NUMBER, text })));
      // Kill as soon as sms-batch has answered some of this round but not all: it is then in the middle of it.
      await eventually(async () => {
        const { inboundAwaitingResponse } = await smsc().stats();
        return inboundAwaitingResponse < MESSAGES ? true : undefined;
      }, 10_000, 1);
      expect(await ctx.stack.kill('sms-batch', 'SIGKILL')).toBe('SIGKILL');
      await ctx.stack.start('sms-batch');

      const views = await eventually(async () => {
        const current = await Promise.all(sent.map((m) => smsc().view(m.id)));
        return current.every((v) => v.acknowledged) ? current : undefined;
      }, 60_000);
      const lost = views.filter((v) => v.deliveries[0]?.response === null);
      unanswered.push(...lost);
      // The simulator cannot see whether sms-batch read a deliver_sm it never answered, or died
      // before reading it. It can when a later deliver_sm on the same connection was answered: TCP
      // delivers in order, so the unanswered one had arrived and was being recorded. That needs
      // sms-batch to answer out of order, which its database timing decides, so the rounds go on
      // until one shows it (most do) but only the weaker fact is asserted: some deliver_sm of the
      // round were unanswered when sms-batch died and were redelivered. Whether a record committed
      // before the kill (its redelivery then a duplicate to drop) is a matter of microseconds and
      // cannot be forced either; exactly-once at the receiver covers both cases.
      provablyRead.push(...lost.filter((v) => {
        const first = v.deliveries[0];
        return views.some((other) => other.deliveries.some((d) => d.session.id === first?.session.id && d.sequenceNumber > (first?.sequenceNumber ?? Infinity) && d.response !== null && d.reason !== 'redelivery'));
      }));
      for (const view of lost) {
        const [first, ...again] = view.deliveries;
        expect(again.length).toBeGreaterThan(0);
        expect(again.every((d) => d.reason === 'redelivery')).toBe(true);
        // Sent again on the connection of the restarted sms-batch, and acknowledged there.
        expect(again[0]?.session.id).not.toBe(first?.session.id);
        expect(again.some((d) => d.response?.status === 0)).toBe(true);
      }
    }
    expect(unanswered.length).toBeGreaterThan(0);

    await eventually(async () => (texts.every((t) => postedTexts().has(t)) ? true : undefined), 60_000);
    await sleep(2000); // a second post of any of them would have come by now
    const posted = postedTexts();
    expect(texts.filter((t) => posted.get(t) !== 1)).toEqual([]);
    expect((await smsc().stats()).inboundRedelivered).toBeGreaterThanOrEqual(unanswered.length);
  });
});
