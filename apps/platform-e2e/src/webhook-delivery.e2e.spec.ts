import { eventually, startStack } from '@seed/platform-testing';
import { expectApiError, ISO_UTC, sendBatch, ukMobile, UUID, type Account } from './support/http';
import { useStarted } from './support/stack';
import { deadLettersOf, setDefaultUrl, webhookAdmin } from './support/webhook-admin';
import { bodyOf, verifiesWith, WebhookReceiver, type ReceivedWebhook } from './support/webhook-receiver';

/**
 * Delivery-status webhooks through the whole stack: a batch with dlrCallbackUrl is sent to the
 * simulated carrier and its status changes reach a local receiver, signed. Loopback is allowed for
 * the receivers' ports only (WEBHOOK_ALLOWED_HOSTS), so other loopback targets are refused as in production.
 */
describe('delivery-status webhooks', () => {
  let receiver: WebhookReceiver;
  let other: WebhookReceiver;
  let slow: WebhookReceiver;
  const ctx = useStarted(async () => {
    receiver = await WebhookReceiver.start();
    other = await WebhookReceiver.start();
    slow = await WebhookReceiver.start();
    return startStack({
      WEBHOOK_ALLOWED_HOSTS: `127.0.0.1:${receiver.port},127.0.0.1:${slow.port}`,
      WEBHOOK_TIMEOUT_MS: '1000',
      WEBHOOK_RETRY_BASE_MS: '100',
      WEBHOOK_RETRY_MAX_DELAY_MS: '400',
      WEBHOOK_RETRY_MAX_AGE_MS: '4000',
      WEBHOOK_ENDPOINT_CONCURRENCY: '4',
      WEBHOOK_BREAKER_FAILURES: '5',
      WEBHOOK_BREAKER_COOLDOWN_MS: '1500',
      SMSC_RECEIPT_DELAY_MS: '50',
    });
  });
  let account: Account;
  let secret: string;
  let n = 0;

  beforeAll(async () => {
    account = await ctx.stack.createAccount();
    secret = await setDefaultUrl(ctx.stack, account.accountId, receiver.url('/default'));
  });
  afterAll(async () => {
    await receiver?.close();
    await other?.close();
    await slow?.close();
  });
  beforeEach(() => receiver.behave({}));

  const send = (messages: object[], template: object = {}) =>
    sendBatch(ctx.stack, account, { template: { text: 'Webhook test', source: 'ACME', ...template }, messages, includeMessagesInResponse: true });
  const forUmid = (umid: string, list: ReceivedWebhook[] = receiver.received) => list.filter((r) => r.body.includes(umid));
  const acceptedStates = (umid: string) => forUmid(umid, receiver.accepted()).map((r) => bodyOf(r).payload.status.state);

  it('posts sent then delivered to the message’s dlrCallbackUrl, signed with the account’s secret', async () => {
    const batch = await send([{ destination: `+${ukMobile(++n)}`, clientMessageId: 'm-1', dlrCallbackUrl: receiver.url('/per-message') }], {});
    const umid = batch.messages?.[0]?.umid as string;
    await eventually(async () => (acceptedStates(umid).length >= 2 ? true : undefined), 30_000);
    const got = forUmid(umid, receiver.accepted());
    expect(got.map((r) => r.path)).toEqual(['/per-message', '/per-message']);
    expect(got.map((r) => bodyOf(r).payload.status.state)).toEqual(['sent', 'delivered']);
    expect(bodyOf(got[1] as ReceivedWebhook)).toEqual({
      namespace: 'SMS',
      eventType: 'outbound_message_status_changed',
      description: 'Outbound message status changed',
      payload: {
        umid,
        batchId: batch.batchId,
        clientMessageId: 'm-1',
        clientBatchId: null,
        subAccountId: account.subAccountId,
        source: 'ACME',
        destination: ukMobile(n),
        smsCount: 1,
        status: { state: 'delivered', detail: 'SMS is delivered to the handset', timestamp: expect.stringMatching(ISO_UTC), errorCode: null, errorMessage: null },
      },
    });
    for (const r of got) {
      expect(r.headers['content-type']).toBe('application/json');
      expect(r.headers['x-seed-delivery-id']).toMatch(UUID);
      expect(verifiesWith(secret, r.headers['x-seed-signature'], r.body)).toBe(true);
      expect(verifiesWith('whsec_wrong', r.headers['x-seed-signature'], r.body)).toBe(false);
    }
    expect(new Set(got.map((r) => r.headers['x-seed-delivery-id'])).size).toBe(2);
  });

  it('sends to the account’s default URL when the message names none; a rejected message gets its webhook too', async () => {
    const batch = await send([{ destination: `+${ukMobile(++n)}` }, { destination: '12' }]);
    const [queued, rejected] = batch.messages ?? [];
    await eventually(async () => (acceptedStates(queued?.umid as string).length >= 2 ? true : undefined), 30_000);
    expect(forUmid(queued?.umid as string, receiver.accepted()).map((r) => r.path)).toEqual(['/default', '/default']);
    await eventually(async () => (acceptedStates(rejected?.umid as string).length >= 1 ? true : undefined), 30_000);
    expect(bodyOf(forUmid(rejected?.umid as string)[0] as ReceivedWebhook).payload.status).toMatchObject({
      state: 'rejected',
      detail: 'Invalid MSISDN format (not E.164 international number)',
    });
  });

  it('retries a receiver that fails, with the same delivery id, until it answers 2xx; order holds', async () => {
    receiver.behave({ fail: 3, failStatus: 500 });
    const batch = await send([{ destination: `+${ukMobile(++n)}` }]);
    const umid = batch.messages?.[0]?.umid as string;
    await eventually(async () => (acceptedStates(umid).length >= 2 ? true : undefined), 30_000);
    const all = forUmid(umid);
    expect(all.slice(0, 3).map((r) => r.answer)).toEqual([500, 500, 500]);
    expect(all.map((r) => bodyOf(r).payload.status.state)).toEqual(['sent', 'sent', 'sent', 'sent', 'delivered']);
    expect(new Set(all.slice(0, 4).map((r) => r.headers['x-seed-delivery-id'])).size).toBe(1);
    expect(all.slice(0, 4).map((r) => r.headers['x-seed-attempt'])).toEqual(['1', '2', '3', '4']);
  });

  it('counts a receiver that hangs past WEBHOOK_TIMEOUT_MS as failed and sends again', async () => {
    receiver.behave({ hang: 1 });
    const batch = await send([{ destination: `+${ukMobile(++n)}` }]);
    const umid = batch.messages?.[0]?.umid as string;
    await eventually(async () => (acceptedStates(umid).length >= 2 ? true : undefined), 30_000);
    const all = forUmid(umid);
    expect(all.map((r) => r.answer)).toEqual(['hang', 200, 200]);
    expect((all[1] as ReceivedWebhook).at - (all[0] as ReceivedWebhook).at).toBeGreaterThanOrEqual(950);
  });

  it('dead-letters a delivery whose retries ran out, lists it, and re-drives it', async () => {
    receiver.behave({ fail: 1_000_000 });
    const batch = await send([{ destination: `+${ukMobile(++n)}`, dlrCallbackUrl: receiver.url('/dead') }]);
    const umid = batch.messages?.[0]?.umid as string;
    // `delivered` waits behind `sent`; its retry window runs from its status change too, so it is
    // dead-lettered as well instead of waiting forever: after one attempt of its own, or none when
    // the window passed while the endpoint's breaker was open (the sweep ends it then).
    const dead = await eventually(async () => {
      const list = (await deadLettersOf(ctx.stack, account.accountId)).filter((d) => d.umid === umid);
      return list.length === 2 ? list : undefined;
    }, 30_000);
    expect(dead.map((d) => d.body.payload.status.state)).toEqual(['sent', 'delivered']);
    for (const d of dead) expect(d).toMatchObject({ umid, url: receiver.url('/dead'), body: { payload: { umid } } });
    expect(dead[0]).toMatchObject({ lastStatus: 503, lastError: 'HTTP 503' });
    expect(dead[0]?.attempts).toBeGreaterThan(1);
    if (dead[1]!.attempts > 0) expect(dead[1]).toMatchObject({ lastStatus: 503, lastError: 'HTTP 503' });
    // The breaker opened after 5 consecutive failures: the next request to the endpoint (a probe)
    // came only after the 1.5 s cool-down.
    const tries = receiver.received.filter((r) => r.path === '/dead');
    if (tries.length > 5) expect((tries[5] as ReceivedWebhook).at - (tries[4] as ReceivedWebhook).at).toBeGreaterThanOrEqual(1400);
    // Never `delivered` before the last try of `sent`.
    expect(receiver.received.filter((r) => r.path === '/dead').map((r) => bodyOf(r).payload.status.state).slice(0, dead[0]!.attempts)).not.toContain('delivered');

    receiver.behave({});
    const one = await webhookAdmin(ctx.stack, account.accountId).redrive(dead[0]?.deliveryId as string);
    expect(one.status).toBe(200);
    expect(await one.json()).toEqual({ redriven: 1 });
    await eventually(async () => (acceptedStates(umid).length === 1 ? true : undefined), 30_000);
    const all = await webhookAdmin(ctx.stack, account.accountId).redriveAll();
    expect(await all.json()).toEqual({ redriven: 1 });
    await eventually(async () => (acceptedStates(umid).length === 2 ? true : undefined), 30_000);
    expect(acceptedStates(umid).sort()).toEqual(['delivered', 'sent']);
    expect((await deadLettersOf(ctx.stack, account.accountId)).filter((d) => d.umid === umid)).toEqual([]);
    const again = await webhookAdmin(ctx.stack, account.accountId).redrive(dead[0]?.deliveryId as string);
    await expectApiError(again, 404, 1300);
  });

  it('a hanging endpoint holds only its own deliveries: others arrive at once, it never gets more than its concurrency', async () => {
    slow.behave({ hang: 1_000_000 });
    await send(Array.from({ length: 40 }, (_, i) => ({ destination: `+${ukMobile(5000 + i)}`, dlrCallbackUrl: slow.url('/slow') })));
    await eventually(async () => (slow.received.length >= 4 ? true : undefined), 30_000);
    const batch = await send([{ destination: `+${ukMobile(++n)}` }]);
    const umid = batch.messages?.[0]?.umid as string;
    await eventually(async () => (acceptedStates(umid).length >= 2 ? true : undefined), 30_000);
    for (const r of forUmid(umid, receiver.accepted())) {
      expect(r.at - Date.parse(bodyOf(r).payload.status.timestamp)).toBeLessThan(3000);
    }
    expect(slow.accepted()).toEqual([]);
    expect(slow.maxConcurrent).toBeLessThanOrEqual(4);
  });

  it('refuses targets on loopback (unless listed), link-local metadata, private and names resolving to them: no request, dead-lettered', async () => {
    const refused = [
      other.url('/not-listed'), // 127.0.0.1, but not on the listed port
      `http://localhost:${receiver.port}/by-name`, // a name resolving to loopback
      `http://[::1]:${receiver.port}/v6`,
      'http://169.254.169.254/latest/meta-data/',
      'http://10.0.0.1/dlr',
    ];
    const batch = await send(refused.map((dlrCallbackUrl, i) => ({ destination: `+${ukMobile(1000 + ++n + i)}`, dlrCallbackUrl })));
    const umids = (batch.messages ?? []).map((m) => m.umid);
    const dead = await eventually(async () => {
      const list = (await deadLettersOf(ctx.stack, account.accountId)).filter((d) => umids.includes(d.umid));
      return list.length >= refused.length * 2 ? list : undefined;
    }, 30_000);
    for (const d of dead) {
      expect(d).toMatchObject({ attempts: 0, lastStatus: null, lastError: expect.stringMatching(/^target refused: /) });
    }
    expect(dead.find((d) => d.url.includes('169.254'))?.lastError).toContain('linkLocal');
    expect(dead.find((d) => d.url.includes('localhost'))?.lastError).toContain('loopback');
    expect(other.received).toEqual([]);
    expect(receiver.received.filter((r) => r.path === '/by-name' || r.path === '/v6')).toEqual([]);
  });

  it('rotating the secret signs with the new and the previous secret during the overlap', async () => {
    const res = await webhookAdmin(ctx.stack, account.accountId).rotate();
    expect(res.status).toBe(200);
    const rotated = (await res.json()) as { signingSecret: string; previousSecretValidUntil: string };
    expect(rotated.signingSecret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(rotated.signingSecret).not.toBe(secret);
    expect(Date.parse(rotated.previousSecretValidUntil) - Date.now()).toBeGreaterThan(23 * 3600_000);
    const batch = await send([{ destination: `+${ukMobile(++n)}` }]);
    const umid = batch.messages?.[0]?.umid as string;
    await eventually(async () => (acceptedStates(umid).length >= 1 ? true : undefined), 30_000);
    const got = forUmid(umid, receiver.accepted())[0] as ReceivedWebhook;
    expect(String(got.headers['x-seed-signature']).match(/v1=/g)).toHaveLength(2);
    expect(verifiesWith(rotated.signingSecret, got.headers['x-seed-signature'], got.body)).toBe(true);
    expect(verifiesWith(secret, got.headers['x-seed-signature'], got.body)).toBe(true);
  });

  describe('admin API input', () => {
    it('answers the contract’s errors and changes nothing', async () => {
      const hooks = webhookAdmin(ctx.stack, account.accountId);
      await expectApiError(await hooks.setDefault('ftp://example.com/x'), 400, 1000);
      await expectApiError(await hooks.setDefault('not a url'), 400, 1000);
      await expectApiError(await hooks.setDefault(42), 400, 1000);
      await expectApiError(await webhookAdmin(ctx.stack, 'no-such-account').setDefault('https://example.com/'), 404, 1300);
      await expectApiError(await webhookAdmin(ctx.stack, 'no-such-account').deadLetters(), 404, 1300);
      await expectApiError(await webhookAdmin(ctx.stack, `${account.accountId}\u0000x`).deadLetters(), 404, 1300); // %00: not a 500
      await expectApiError(await webhookAdmin(ctx.stack, 'a').rotate(), 404, 1300);
      await expectApiError(await webhookAdmin(ctx.stack, account.accountId, 'wrong-token-wrong-token').rotate(), 401, 1200);
      await expectApiError(await hooks.redrive('not-a-delivery-id'), 404, 1300);
      await expectApiError(await hooks.redrive('0190b7a4-0000-7000-8000-000000000000'), 404, 1300);
      // The default is still the receiver's, and the secret is unchanged by the failed calls.
      const batch = await send([{ destination: `+${ukMobile(++n)}` }]);
      const umid = batch.messages?.[0]?.umid as string;
      await eventually(async () => (acceptedStates(umid).length >= 1 ? true : undefined), 30_000);
      expect(forUmid(umid, receiver.accepted())[0]?.path).toBe('/default');
    });
  });
});
