import { eventually, startStack } from '@seed/platform-testing';
import { sendBatch, ukMobile, type Account } from './support/http';
import { useStarted } from './support/stack';
import { setDefaultUrl } from './support/webhook-admin';
import { bodyOf, WebhookReceiver } from './support/webhook-receiver';

/** New accounts sending at once: each one's first status changes reach several intakes together. */
const ACCOUNTS = 10;
const MESSAGES_PER_ACCOUNT = 2000;
/** Messages of an account whose endpoint refuses everything: their deliveries are retried meanwhile. */
const BACKLOG = 1000;

/**
 * Under load, every final status of every accepted message reaches the customer's webhook exactly
 * once: ten accounts that never had a webhook before each send a 2,000-message batch with a
 * dlrCallbackUrl at the same moment (so the intakes of several partitions and both replicas give
 * the same new account its first signing secret at once), while another account's dead endpoint
 * keeps a backlog of retries going. A loss here is the worst failure the platform can have: the
 * customer's system waits for a status that never comes.
 */
describe('no status webhook lost under load', () => {
  let receiver: WebhookReceiver;
  let dead: WebhookReceiver;
  const ctx = useStarted(async () => {
    receiver = await WebhookReceiver.start();
    dead = await WebhookReceiver.start();
    dead.behave({ fail: Number.MAX_SAFE_INTEGER, failStatus: 503 });
    return startStack({
      SERVICE_REPLICAS: '2',
      GATEWAY_PORT_STEP: '5',
      SMSC_RECEIPT_DELAY_MS: '50',
      WEBHOOK_ALLOWED_HOSTS: `127.0.0.1:${receiver.port},127.0.0.1:${dead.port}`,
      WEBHOOK_RETRY_BASE_MS: '200',
      WEBHOOK_RETRY_MAX_DELAY_MS: '2000',
      WEBHOOK_BREAKER_COOLDOWN_MS: '1000',
    });
  });

  afterAll(async () => {
    await receiver?.close();
    await dead?.close();
  });

  it('delivers every final status exactly once, from several new accounts at once, beside a retried backlog', async () => {
    const backlogAccount = await ctx.stack.createAccount();
    await setDefaultUrl(ctx.stack, backlogAccount.accountId, dead.url('/dead'));
    await sendBatch(ctx.stack, backlogAccount, {
      template: { text: 'Backlog', source: 'ACME' },
      messages: Array.from({ length: BACKLOG }, (_, i) => ({ destination: `+${ukMobile(900_000 + i)}` })),
    });
    await eventually(async () => (dead.failed >= 3 ? true : undefined), 60_000, 200);

    const accounts: Account[] = [];
    for (let a = 0; a < ACCOUNTS; a++) accounts.push(await ctx.stack.createAccount());
    const batches = await Promise.all(
      accounts.map((account, a) =>
        sendBatch(ctx.stack, account, {
          template: { source: 'ACME', dlrCallbackUrl: receiver.url(`/a${a}`) },
          messages: Array.from({ length: MESSAGES_PER_ACCOUNT }, (_, i) => ({ destination: `+${ukMobile(a * MESSAGES_PER_ACCOUNT + i)}`, text: `Hello ${i}` })),
          includeMessagesInResponse: true,
        }),
      ),
    );
    const umids = new Set(batches.flatMap((b) => (b.messages ?? []).map((m) => m.umid)));
    expect(umids.size).toBe(ACCOUNTS * MESSAGES_PER_ACCOUNT);

    const finals = () => {
      const count = new Map<string, number>();
      for (const r of receiver.accepted('/a')) {
        const { umid, status } = bodyOf(r).payload;
        if (status.state === 'delivered') count.set(umid, (count.get(umid) ?? 0) + 1);
      }
      return count;
    };
    // Every final status arrives (or the wait ends, and the assertions below name what is missing).
    await eventually(async () => (finals().size === umids.size ? true : undefined), 240_000, 500).catch(() => undefined);
    // A little longer, for any second copy to show up.
    await new Promise((r) => setTimeout(r, 3000));

    const count = finals();
    const missing = [...umids].filter((u) => !count.has(u));
    const twice = [...count].filter(([, n]) => n > 1).map(([u]) => u);
    const sent = new Map<string, number>();
    for (const r of receiver.accepted('/a')) {
      const { umid, status } = bodyOf(r).payload;
      if (status.state === 'sent') sent.set(umid, (sent.get(umid) ?? 0) + 1);
    }
    if (missing.length > 0) {
      // What the dispatcher holds of the first missing ones, to say where they stopped.
      const rows = await ctx.db.query(
        `SELECT umid, sequence, state, attempts, next_attempt_at, lease_until FROM "${ctx.stack.schemaPrefix}webhook_dispatcher".deliveries WHERE umid = ANY($1::text[])`,
        [missing.slice(0, 20)],
      );
      process.stderr.write(`missing finals: ${missing.length}; their deliveries: ${JSON.stringify(rows)}\n`);
    }
    expect({ missing: missing.length, twice: twice.length, firstMissing: missing.slice(0, 5) }).toEqual({ missing: 0, twice: 0, firstMissing: [] });
    expect([...umids].filter((u) => sent.get(u) !== 1)).toEqual([]);

    // The final-status reconciliation agrees: every final change it watched was handled (scheduled,
    // or posted and recorded), so its gauge of unreported ones would stay at 0.
    const wh = `"${ctx.stack.schemaPrefix}webhook_dispatcher"`;
    const unhandled = async () =>
      (
        await ctx.db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM ${wh}.final_status_watch w
            WHERE NOT EXISTS (SELECT 1 FROM ${wh}.processed_messages p WHERE p.consumer = 'sms-batch-events' AND p.message_id = w.event_id)`,
        )
      )[0]?.n;
    expect(await eventually(async () => ((await unhandled()) === 0 ? 0 : undefined), 15_000, 200).catch(() => unhandled())).toBe(0);
  }, 420_000);
});
