import { randomBytes } from 'node:crypto';
import { eventually, OtlpReceiver, startStack, type ReceivedSpan, type RunningStack } from '@seed/platform-testing';
import { request, ukMobile, type Account } from './support/http';
import { useStarted } from './support/stack';
import { setDefaultUrl } from './support/webhook-admin';
import { WebhookReceiver } from './support/webhook-receiver';

const SERVER = 2;
const CLIENT = 3;
const PRODUCER = 4;
const CONSUMER = 5;

/**
 * With OTEL_EXPORTER_OTLP_ENDPOINT set, one request is one trace across the services: the HTTP
 * request at the gateway, the Kafka command, its handling and PostgreSQL statements in the owning
 * service, the outbox publication and the SMPP submission of the message it queued.
 */
describe('traces across the services', () => {
  let otlp: OtlpReceiver;
  let receiver: WebhookReceiver;
  const ctx = useStarted(async () => {
    otlp = await OtlpReceiver.start();
    receiver = await WebhookReceiver.start();
    return startStack({ OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OTEL_BSP_SCHEDULE_DELAY: '100', WEBHOOK_ALLOWED_HOSTS: `127.0.0.1:${receiver.port}` });
  });
  let stack: RunningStack;
  let account: Account;

  beforeAll(async () => {
    stack = ctx.stack;
    account = await stack.createAccount();
    await setDefaultUrl(stack, account.accountId, receiver.url('/dlr'));
  });
  afterAll(async () => {
    await otlp?.close();
    await receiver?.close();
  });

  /** A caller's own trace: every span of the platform's work must join it. */
  const callerTrace = () => {
    const traceId = randomBytes(16).toString('hex');
    const spanId = randomBytes(8).toString('hex');
    return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` };
  };

  /** Waits until the trace holds a span matching each of `wanted`, and returns them in that order. */
  async function spansOf(traceId: string, wanted: ((s: ReceivedSpan) => boolean)[]): Promise<ReceivedSpan[]> {
    return eventually(async () => {
      const spans = otlp.trace(traceId);
      const found = wanted.map((match) => spans.find(match));
      return found.every(Boolean) ? (found as ReceivedSpan[]) : undefined;
    }, 30_000);
  }
  const named = (service: string, name: string | RegExp, kind?: number) => (s: ReceivedSpan) =>
    s.service === service && (typeof name === 'string' ? s.name === name : name.test(s.name)) && (kind === undefined || s.kind === kind);
  const childrenOf = (traceId: string, parent: ReceivedSpan) => otlp.trace(traceId).filter((s) => s.parentSpanId === parent.spanId);

  it('a batch: HTTP request, SubmitBatch command and its handling with its statements, publication, the SMPP submission and the webhooks of its sent and delivered changes', async () => {
    const caller = callerTrace();
    const res = await request(`${stack.messagingUrl}/sms/v1/${account.subAccountId}/many`, {
      token: account.apiKey,
      headers: { traceparent: caller.traceparent },
      body: { template: { text: 'Traced' }, messages: [{ destination: `+${ukMobile(90_001)}` }] },
    });
    expect(res.status).toBe(200);

    const [server, send, handled, submit, publish] = await spansOf(caller.traceId, [
      named('api-gateway', /^POST/, SERVER),
      named('api-gateway', 'SubmitBatch send', PRODUCER),
      named('sms-batch', 'SubmitBatch process', CONSUMER),
      named('sms-batch', 'submit_sm send', CLIENT),
      named('sms-batch', /publish$/, PRODUCER),
    ]) as [ReceivedSpan, ReceivedSpan, ReceivedSpan, ReceivedSpan, ReceivedSpan];
    expect(server.parentSpanId).toBe(caller.spanId);
    expect(send.parentSpanId).toBe(server.spanId);
    expect(handled.parentSpanId).toBe(send.spanId);
    // The handler's statements (the append among them) are its children.
    const isStatement = (s: ReceivedSpan) => s.service === 'sms-batch' && (s.attributes['db.system.name'] ?? s.attributes['db.system']) === 'postgresql';
    expect(childrenOf(caller.traceId, handled).some(isStatement)).toBe(true);
    // The message queued by the handler is submitted, and its events published, in the same trace.
    expect(submit.parentSpanId).toBe(handled.spanId);
    expect([handled.spanId, submit.spanId]).toContain(publish.parentSpanId);

    // The receipt comes later, on its own: its change carries the submission's trace on, so both
    // webhook POSTs (sent, delivered) are children of the submission, each with its HTTP request.
    const webhooks = await eventually(async () => {
      const sends = otlp.trace(caller.traceId).filter(named('webhook-dispatcher', 'webhook send', CLIENT));
      return sends.length >= 2 ? sends : undefined;
    }, 30_000);
    for (const send of webhooks) {
      expect(send.parentSpanId).toBe(submit.spanId);
      await eventually(async () => (childrenOf(caller.traceId, send).some((s) => s.kind === CLIENT && /^POST/.test(s.name)) ? true : undefined), 10_000);
    }
  });

  it('a Verify flow: generation, the follower that sends the code, and its SMS at the carrier', async () => {
    const caller = callerTrace();
    const res = await request(`${stack.messagingUrl}/verify/v2/${account.subAccountId}`, {
      token: account.apiKey,
      headers: { traceparent: caller.traceparent },
      body: { destination: `+${ukMobile(90_002)}` },
    });
    expect(res.status).toBe(200);

    const [server, send, handled, smsSend, smsHandled, submit] = await spansOf(caller.traceId, [
      named('api-gateway', /^POST/, SERVER),
      named('api-gateway', 'StartVerification send', PRODUCER),
      named('verification', 'StartVerification process', CONSUMER),
      named('verification', 'SubmitBatch send', PRODUCER),
      named('sms-batch', 'SubmitBatch process', CONSUMER),
      named('sms-batch', 'submit_sm send', CLIENT),
    ]) as [ReceivedSpan, ReceivedSpan, ReceivedSpan, ReceivedSpan, ReceivedSpan, ReceivedSpan];
    expect(server.parentSpanId).toBe(caller.spanId);
    expect(send.parentSpanId).toBe(server.spanId);
    expect(handled.parentSpanId).toBe(send.spanId);
    // The SMS is sent by a follower of the log, after the request was answered: it joins the trace
    // through the traceparent stored with the event.
    expect(smsSend.parentSpanId).toBe(handled.spanId);
    expect(smsHandled.parentSpanId).toBe(smsSend.spanId);
    expect(submit.parentSpanId).toBe(smsHandled.spanId);
  });
});
