import { eventually, startStack } from '@seed/platform-testing';
import { sendBatch, ukMobile, type Account } from './support/http';
import { useStarted } from './support/stack';
import { deadLettersOf, setDefaultUrl } from './support/webhook-admin';
import { bodyOf, WebhookReceiver, type ReceivedWebhook } from './support/webhook-receiver';

const MESSAGES = 3000;
const BATCH = 1000;

/**
 * A customer's endpoint is down while thousands of status changes pile up for it, then comes back:
 * the backlog drains with every message's changes in order (never `delivered` before `sent` was
 * accepted), nothing is lost or dead-lettered, and another account's webhooks flow meanwhile.
 */
describe('webhook backlog after a customer outage', () => {
  let down: WebhookReceiver;
  let healthy: WebhookReceiver;
  const ctx = useStarted(async () => {
    down = await WebhookReceiver.start();
    healthy = await WebhookReceiver.start();
    down.behave({ fail: Number.MAX_SAFE_INTEGER, failStatus: 503 });
    return startStack({
      WEBHOOK_ALLOWED_HOSTS: `127.0.0.1:${down.port},127.0.0.1:${healthy.port}`,
      WEBHOOK_RETRY_BASE_MS: '200',
      WEBHOOK_RETRY_MAX_DELAY_MS: '2000',
      WEBHOOK_BREAKER_COOLDOWN_MS: '1000',
    });
  });
  let outaged: Account;
  let other: Account;

  beforeAll(async () => {
    outaged = await ctx.stack.createAccount();
    other = await ctx.stack.createAccount();
    await setDefaultUrl(ctx.stack, outaged.accountId, down.url('/down'));
    await setDefaultUrl(ctx.stack, other.accountId, healthy.url('/other'));
  });
  afterAll(async () => {
    await down?.close();
    await healthy?.close();
  });

  const pending = async (): Promise<number> => {
    const [row] = await ctx.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM "${ctx.stack.schemaPrefix}webhook_dispatcher".deliveries WHERE account_id = $1 AND state = 'pending'`,
      [outaged.accountId],
    );
    return row?.n ?? 0;
  };
  const statesByUmid = (list: ReceivedWebhook[]) => {
    const byUmid = new Map<string, string[]>();
    for (const r of list) {
      const { umid, status } = bodyOf(r).payload;
      byUmid.set(umid, [...(byUmid.get(umid) ?? []), status.state]);
    }
    return byUmid;
  };

  it('drains in per-message order with nothing lost, while other accounts keep receiving theirs', async () => {
    const umids: string[] = [];
    for (let b = 0; b < MESSAGES / BATCH; b++) {
      const messages = Array.from({ length: BATCH }, (_, i) => ({ destination: `+${ukMobile(b * BATCH + i)}` }));
      const batch = await sendBatch(ctx.stack, outaged, { template: { text: 'Backlog', source: 'ACME' }, messages, includeMessagesInResponse: true });
      umids.push(...(batch.messages ?? []).map((m) => m.umid));
    }
    expect(umids).toHaveLength(MESSAGES);
    // Every message's sent and delivered changes wait for the endpoint.
    await eventually(async () => ((await pending()) === 2 * MESSAGES ? true : undefined), 120_000, 200);

    // Meanwhile another account's webhooks are not held up by the backlog.
    const others = await sendBatch(ctx.stack, other, { template: { text: 'Other', source: 'ACME' }, messages: Array.from({ length: 50 }, (_, i) => ({ destination: `+${ukMobile(90_000 + i)}` })), includeMessagesInResponse: true });
    await eventually(async () => (healthy.accepted('/other').length >= 100 ? true : undefined), 30_000, 100);
    expect([...statesByUmid(healthy.accepted('/other')).values()].every((s) => s.includes('sent') && s.includes('delivered'))).toBe(true);
    expect(statesByUmid(healthy.accepted('/other')).size).toBe(others.messages?.length);

    const refusedBeforeRecovery = down.received.length;
    down.behave({});
    await eventually(async () => (statesByUmid(down.accepted('/down')).size === MESSAGES && (await pending()) === 0 ? true : undefined), 120_000, 200);

    // Nothing lost, nothing dead-lettered, and each message's changes in order: no `delivered`
    // request before its `sent` was accepted.
    const accepted = statesByUmid(down.accepted('/down'));
    expect([...accepted.keys()].sort()).toEqual([...umids].sort());
    for (const states of accepted.values()) expect(new Set(states)).toEqual(new Set(['sent', 'delivered']));
    const sentAcceptedAt = new Map<string, number>();
    for (const r of down.received) {
      const { umid, status } = bodyOf(r).payload;
      if (status.state === 'sent' && r.answer === 200 && !sentAcceptedAt.has(umid)) sentAcceptedAt.set(umid, r.at);
      if (status.state === 'delivered') expect(sentAcceptedAt.has(umid)).toBe(true);
    }
    expect(await deadLettersOf(ctx.stack, outaged.accountId)).toEqual([]);
    // The outage was real: the endpoint refused requests before it came back (the circuit breaker
    // kept them to a trickle of probes, not one per pending delivery).
    expect(refusedBeforeRecovery).toBeGreaterThan(0);
    expect(refusedBeforeRecovery).toBeLessThan(2 * MESSAGES);
  }, 300_000);
});
