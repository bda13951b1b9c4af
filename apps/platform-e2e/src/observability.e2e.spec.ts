import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { eventually, healthPortOf, platformServices, startStack, type RunningStack } from '@seed/platform-testing';
import { sendBatch, ukMobile, type Account } from './support/http';
import { metricNamesOf, sampleNamesOf } from './support/promql';
import { useStarted } from './support/stack';
import { setDefaultUrl } from './support/webhook-admin';
import { WebhookReceiver } from './support/webhook-receiver';

const OBSERVABILITY = join(__dirname, '../../../k8s/observability');

/** Series Prometheus makes for every target itself; no service exports them. */
const MADE_BY_PROMETHEUS = new Set(['up']);
/**
 * Metrics declared from the start (HELP and TYPE on /metrics) with no series on a healthy run with one
 * uncapped carrier: counters of failures, whose labels (the command type, the carrier's status) are
 * known only at the first failure, and the cap's share, which a carrier without maxPerSecond lacks.
 */
const FIRST_SERIES_ON_FAILURE = new Set([
  'kafka_consumer_handling_failures_total',
  'sms_batch_smpp_submit_errors_total',
  'sms_batch_carrier_throttled_seconds_total',
  'sms_batch_carrier_rate_share',
]);

interface DashboardPanel {
  title?: string;
  targets?: { expr?: string }[];
  panels?: DashboardPanel[];
}

function dashboardExpressions(): string[] {
  const dashboard = JSON.parse(readFileSync(join(OBSERVABILITY, 'grafana-dashboard.json'), 'utf8')) as { panels: DashboardPanel[] };
  const of = (panels: DashboardPanel[]): string[] => panels.flatMap((p) => [...(p.targets ?? []).flatMap((t) => (t.expr ? [t.expr] : [])), ...of(p.panels ?? [])]);
  return of(dashboard.panels);
}

function ruleExpressions(): string[] {
  const rule = parse(readFileSync(join(OBSERVABILITY, 'prometheus-rules.yaml'), 'utf8')) as { spec: { groups: { rules: { expr: string }[] }[] } };
  return rule.spec.groups.flatMap((g) => g.rules.map((r) => String(r.expr)));
}

/** The scrape-only secret the stack's gateway is given, as Prometheus would hold it. */
const METRICS_TOKEN = randomBytes(24).toString('hex');

/**
 * Every service's /metrics: the gateway's on its admin listener (behind METRICS_TOKEN or the admin
 * token), the others' on their health ports (not exposed, no token).
 */
function metricsUrls(stack: RunningStack): Record<string, string> {
  const health = Number(stack.env['HEALTH_PORT_BASE']);
  const backEnd = platformServices().filter((service) => service.role === 'service');
  return {
    'api-gateway': `${stack.adminUrl}/metrics`,
    ...Object.fromEntries(backEnd.map((service) => [service.name, `http://127.0.0.1:${healthPortOf(service.name, health)}/metrics`])),
  };
}

async function scrapeAll(stack: RunningStack): Promise<Map<string, string>> {
  const texts = new Map<string, string>();
  for (const [service, url] of Object.entries(metricsUrls(stack))) {
    const res = await fetch(url, service === 'api-gateway' ? { headers: { authorization: `Bearer ${METRICS_TOKEN}` } } : {});
    if (res.status !== 200) throw new Error(`${service}: GET ${url} answered ${res.status}`);
    texts.set(service, await res.text());
  }
  return texts;
}

/** Names a query uses that no service exports with a sample (or, for FIRST_SERIES_ON_FAILURE, declares). */
function missing(expressions: string[], texts: Map<string, string>): string[] {
  const all = [...texts.values()].join('\n');
  const samples = sampleNamesOf(all);
  const used = [...new Set(expressions.flatMap(metricNamesOf))].filter((name) => !MADE_BY_PROMETHEUS.has(name));
  return used.filter((name) => !(samples.has(name) || (FIRST_SERIES_ON_FAILURE.has(name) && all.includes(`# TYPE ${name} `))));
}

/**
 * The dashboard and the alert rules of k8s/observability/ read only metrics the services export:
 * every metric name in their PromQL has series on a running stack's /metrics endpoints once a batch
 * went to the simulated carrier, its receipts came back and its webhooks were sent (series with labels
 * appear at their first use). And no series is labelled with an id, a number or a URL.
 */
describe('metrics of the dashboard and the alert rules', () => {
  let receiver: WebhookReceiver;
  const ctx = useStarted(async () => {
    receiver = await WebhookReceiver.start();
    return startStack({ WEBHOOK_ALLOWED_HOSTS: `127.0.0.1:${receiver.port}`, SMSC_RECEIPT_DELAY_MS: '50', METRICS_TOKEN });
  });
  let account: Account;
  let umids: string[];
  let texts: Map<string, string>;

  beforeAll(async () => {
    account = await ctx.stack.createAccount();
    await setDefaultUrl(ctx.stack, account.accountId, receiver.url('/dlr'));
    const batch = await sendBatch(ctx.stack, account, {
      template: { text: 'Metrics test', source: 'ACME' },
      messages: [{ destination: `+${ukMobile(1)}` }, { destination: `+${ukMobile(2)}` }],
      includeMessagesInResponse: true,
    });
    umids = (batch.messages ?? []).map((m) => m.umid as string);
    // Sent and delivered webhooks of both messages: the carrier, receipts and webhooks have all worked.
    await eventually(async () => (receiver.accepted('/dlr').length >= 4 ? true : undefined), 60_000);
    // The scrape-time gauges (queues, lag) are read on demand: scrape until every name has series.
    const expressions = [...dashboardExpressions(), ...ruleExpressions()];
    texts = await eventually(async () => {
      const scraped = await scrapeAll(ctx.stack);
      return missing(expressions, scraped).length === 0 ? scraped : undefined;
    }, 30_000, 500).catch(async () => scrapeAll(ctx.stack));
  });
  afterAll(async () => {
    await receiver?.close();
  });

  it("serves the gateway's /metrics to METRICS_TOKEN or the admin token only; METRICS_TOKEN opens nothing else", async () => {
    const metrics = `${ctx.stack.adminUrl}/metrics`;
    const as = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });
    expect((await fetch(metrics)).status).toBe(401);
    expect((await fetch(metrics, as(randomBytes(24).toString('hex')))).status).toBe(401);
    expect((await fetch(metrics, as(ctx.stack.adminToken))).status).toBe(200);
    expect((await fetch(`${ctx.stack.adminUrl}/admin/v1/accounts/${account.accountId}`, as(METRICS_TOKEN))).status).toBe(401);
    // Not on the public listeners at all.
    expect((await fetch(`${ctx.stack.messagingUrl}/metrics`, as(METRICS_TOKEN))).status).toBe(404);
  });

  it("exports every metric the dashboard's panels query", () => {
    expect(dashboardExpressions().length).toBeGreaterThan(30);
    expect(missing(dashboardExpressions(), texts)).toEqual([]);
  });

  it('exports every metric the alert rules query', () => {
    expect(missing(ruleExpressions(), texts)).toEqual([]);
  });

  it('labels gateway requests by route template, and no series by id, phone number or URL', () => {
    const gateway = texts.get('api-gateway') ?? '';
    expect(gateway).toMatch(/http_server_request_duration_seconds_count\{listener="messaging",route="\/sms\/v1\/:subAccountId\/many",method="POST",status_class="2xx"\} [1-9]/);
    for (const [service, text] of texts) {
      // Series names and labels only: a sample's value (bytes, seconds) may contain the port's digits.
      const series = text
        .split('\n')
        .map((line) => line.replace(/ \S+$/, ''))
        .join('\n');
      for (const value of [account.subAccountId, account.accountId, ...umids, ukMobile(1), ukMobile(2), String(receiver.port)]) {
        expect({ service, found: series.includes(value) ? value : null }).toEqual({ service, found: null });
      }
    }
  });

  it('reports the carrier bound, the queues drained and the followers caught up', () => {
    const sms = texts.get('sms-batch') ?? '';
    expect(sms).toMatch(/^sms_batch_smpp_bind_up\{carrier="default",bind="1"\} 1$/m);
    expect(sms).toMatch(/^sms_batch_carrier_bound_sessions\{carrier="default"\} 1$/m);
    expect(sms).toMatch(/^sms_batch_smpp_submits_total\{carrier="default",outcome="accepted"\} 2$/m);
    // SMPP_URL alone: the implicit catch-all route (route "") chose the default carrier.
    expect(sms).toMatch(/^sms_batch_route_decisions_total\{route="",carrier="default",outcome="carrier"\} [1-9]\d*$/m);
    expect(sms).toMatch(/^sms_batch_lifecycle_events_total\{event="MessageRouted",reason="handed-off"\} 2$/m);
    expect(sms).toMatch(/^sms_batch_lifecycle_events_total\{event="MessageSent",reason=""\} 2$/m);
    expect(sms).toMatch(/^sms_batch_outbound_queue_due_messages 0$/m);
    expect(sms).toMatch(/^event_follower_lag_seconds\{follower="read-models"\} /m);
    expect(texts.get('webhook-dispatcher') ?? '').toMatch(/^webhook_dispatcher_attempt_duration_seconds_count\{outcome="success"\} 4$/m);
    expect(texts.get('webhook-dispatcher') ?? '').toMatch(/^kafka_consumer_lag_messages\{group="webhook-dispatcher.sms-batch-events",topic="sms-batch.events.v1"\} \d+$/m);
  });
});
