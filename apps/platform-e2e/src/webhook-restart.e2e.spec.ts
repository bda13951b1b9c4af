import { eventually } from '@seed/platform-testing';
import { sendBatch, ukMobile, type Account } from './support/http';
import { setDefaultUrl } from './support/webhook-admin';
import { useProcesses } from './support/processes';
import { bodyOf, WebhookReceiver, type ReceivedWebhook } from './support/webhook-receiver';

const MESSAGES = 50;

/**
 * The receiver is down while status changes happen, and the dispatcher stops (SIGTERM) or dies
 * (SIGKILL) meanwhile. After both are back every change arrives, in order per message, and what
 * was acknowledged before the restart is not sent again.
 */
describe('webhooks across a dispatcher restart', () => {
  let receiver: WebhookReceiver;
  const ctx = useProcesses(async () => {
    receiver = await WebhookReceiver.start();
    return {
      WEBHOOK_ALLOWED_HOSTS: `127.0.0.1:${receiver.port}`,
      WEBHOOK_TIMEOUT_MS: '1000',
      WEBHOOK_RETRY_BASE_MS: '200',
      WEBHOOK_RETRY_MAX_DELAY_MS: '500',
      WEBHOOK_BREAKER_COOLDOWN_MS: '300',
      WEBHOOK_LEASE_MS: '4000',
      SMSC_RECEIPT_DELAY_MS: '50',
    };
  }, ['webhook-dispatcher']);
  let account: Account;

  beforeAll(async () => {
    account = await ctx.stack.createAccount();
    await setDefaultUrl(ctx.stack, account.accountId, receiver.url('/dlr'));
  });
  afterAll(async () => receiver?.close());

  const batchOf = async (first: number) => {
    const batch = await sendBatch(ctx.stack, account, {
      template: { text: 'Restart test' },
      messages: Array.from({ length: MESSAGES }, (_, i) => ({ destination: `+${ukMobile(first + i)}` })),
      includeMessagesInResponse: true,
    });
    return (batch.messages ?? []).map((m) => m.umid);
  };
  const acceptedFor = (umids: string[]) => receiver.accepted().filter((r) => umids.includes(bodyOf(r).payload.umid));
  const statesPerMessage = (list: ReceivedWebhook[]) => {
    const states = new Map<string, string[]>();
    for (const r of list) {
      const b = bodyOf(r);
      states.set(b.payload.umid, [...(states.get(b.payload.umid) ?? []), b.payload.status.state]);
    }
    return states;
  };

  it.each(['SIGTERM', 'SIGKILL'] as const)('loses nothing and re-sends nothing acknowledged (%s)', async (signal) => {
    const first = signal === 'SIGTERM' ? 1000 : 2000;
    const before = await batchOf(first);
    await eventually(async () => (acceptedFor(before).length === MESSAGES * 2 ? true : undefined), 60_000);
    const ackedIds = new Set(acceptedFor(before).map((r) => r.headers['x-seed-delivery-id']));

    await receiver.close();
    const during = await batchOf(first + 500);
    // Let the status changes happen and fail against the closed port for a while.
    await new Promise((r) => setTimeout(r, 2000));
    expect(await ctx.stack.kill('webhook-dispatcher', signal)).toBe(signal);
    await receiver.listen();
    await ctx.stack.start('webhook-dispatcher');

    await eventually(async () => (statesPerMessage(acceptedFor(during)).size === MESSAGES && acceptedFor(during).length >= MESSAGES * 2 ? true : undefined), 60_000);
    for (const states of statesPerMessage(acceptedFor(during)).values()) {
      expect([...new Set(states)]).toEqual(['sent', 'delivered']);
    }
    expect(receiver.received.filter((r) => ackedIds.has(r.headers['x-seed-delivery-id']))).toHaveLength(MESSAGES * 2);
  });
});
