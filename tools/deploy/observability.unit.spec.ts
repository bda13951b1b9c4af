// The alert rules of k8s/observability/ against their runbook and their promtool tests: every alert
// has a severity, a summary, a description and a runbook_url to its own section of docs/operations.md,
// and a promtool test where it fires and one where it stays quiet. promtool itself runs in
// tools/deploy/check-prometheus-rules.sh (npm test); this test needs no tool.
// The Grafana dashboard and the rules against the code: every metric their PromQL reads is declared
// by a service (prom-client's constructors), every label they group, filter or name a legend by is
// one of that metric's labels or one the PodMonitor adds, and the dashboard's panels have unique ids
// and places of their own. That the metrics have series on a running stack is
// apps/platform-e2e/src/observability.e2e.spec.ts's part.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

const ROOT = join(__dirname, '../..');
const read = (path: string): string => readFileSync(join(ROOT, path), 'utf8');

interface AlertRule {
  alert?: string;
  record?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
interface PromtoolCase {
  alert_rule_test?: { alertname: string; exp_alerts?: unknown[] }[];
}

const rules = parse(read('k8s/observability/prometheus-rules.yaml')) as { kind: string; spec: { groups: { rules: AlertRule[] }[] } };
const alerts = rules.spec.groups.flatMap((g) => g.rules).filter((r): r is AlertRule & { alert: string } => typeof r.alert === 'string');
const tests = (parse(read('k8s/observability/prometheus-rules.test.yaml')) as { tests: PromtoolCase[] }).tests.flatMap((t) => t.alert_rule_test ?? []);
const runbook = read('docs/operations.md');
const RUNBOOK_URL = 'https://git.example.com/seed-messaging/blob/main/docs/operations.md#';

describe('alert rules', () => {
  it('is a PrometheusRule with alerts', () => {
    expect(rules.kind).toBe('PrometheusRule');
    expect(alerts.length).toBeGreaterThanOrEqual(8);
  });

  it.each(alerts.map((a) => [a.alert, a] as const))('%s has a severity, a summary, a description and its runbook section', (name, alert) => {
    expect(['critical', 'warning']).toContain(alert.labels?.['severity']);
    expect(alert.annotations?.['summary']).toBeTruthy();
    expect(alert.annotations?.['description']).toBeTruthy();
    // GitHub's anchor of a heading that is the alert's name: the name in lower case.
    expect(alert.annotations?.['runbook_url']).toBe(`${RUNBOOK_URL}${name.toLowerCase()}`);
    expect(runbook).toMatch(new RegExp(`^### ${name}$`, 'm'));
  });

  it.each(alerts.map((a) => [a.alert] as const))('%s has a promtool test where it fires and one where it stays quiet', (name) => {
    const cases = tests.filter((t) => t.alertname === name);
    expect(cases.some((t) => (t.exp_alerts ?? []).length > 0)).toBe(true);
    expect(cases.some((t) => (t.exp_alerts ?? []).length === 0)).toBe(true);
  });
});

/** Labels every series gets from the PodMonitor (pod-monitor.yaml), whatever the metric. */
const TARGET_LABELS = ['namespace', 'service', 'pod'];
/** prom-client's default metrics that the dashboard reads (libs/platform/nest/src/default-metrics.ts), and Prometheus's own `up`. */
const NOT_DECLARED_HERE = ['process_cpu_seconds_total', 'process_resident_memory_bytes', 'nodejs_heap_size_used_bytes', 'nodejs_eventloop_lag_p99_seconds', 'up'];
const KEYWORDS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'bool', 'and', 'or', 'unless', 'offset', 'inf', 'nan']);

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [path] : [];
  });
}

/** Every metric the services declare with a literal name, with its labels (a histogram: its three series). */
function declaredMetrics(): Map<string, Set<string>> {
  const metrics = new Map<string, Set<string>>(NOT_DECLARED_HERE.map((name) => [name, new Set(TARGET_LABELS)]));
  for (const file of [...sourceFiles('apps'), ...sourceFiles('libs')]) {
    for (const [, kind, body] of read(file).matchAll(/new (Counter|Gauge|Histogram|SampledGauge)(?:<[^>]*>)?\(\{([\s\S]*?)\}\);/g)) {
      const name = /\bname: '([a-zA-Z_:][a-zA-Z0-9_:]*)'/.exec(body ?? '')?.[1];
      if (!name) continue;
      const labels = [...(/labelNames: \[([^\]]*)\]/.exec(body ?? '')?.[1] ?? '').matchAll(/'(\w+)'/g)].map((m) => m[1] as string);
      const series = kind === 'Histogram' ? [`${name}_bucket`, `${name}_sum`, `${name}_count`] : [name];
      for (const s of series) metrics.set(s, new Set([...labels, ...TARGET_LABELS, ...(s.endsWith('_bucket') ? ['le'] : [])]));
    }
  }
  return metrics;
}

/** The metric names a PromQL expression reads (as apps/platform-e2e/src/support/promql.ts finds them). */
function metricsOf(expression: string): string[] {
  const bare = expression
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ')
    .replace(/\$\{?\w+\}?/g, ' ');
  const names = new Set<string>();
  for (const match of bare.matchAll(/(?<![A-Za-z0-9_:.])[A-Za-z_:][A-Za-z0-9_:]*/g)) {
    const after = bare.slice((match.index ?? 0) + match[0].length).trimStart();
    if (!after.startsWith('(') && !KEYWORDS.has(match[0].toLowerCase())) names.add(match[0]);
  }
  return [...names];
}

/** Labels an expression groups or matches by, and those its legend names; less those label_replace makes. */
function labelsOf(expression: string, legend = ''): string[] {
  const used = [
    ...[...expression.matchAll(/\b(?:by|without|on|ignoring)\s*\(([^)]*)\)/g)].flatMap((m) => (m[1] as string).split(',')),
    ...[...expression.matchAll(/\{([^}]*)\}/g)].flatMap((m) => [...(m[1] as string).matchAll(/(\w+)\s*(?:=~|!~|!=|=)/g)].map((l) => l[1] as string)),
    ...[...legend.matchAll(/\{\{\s*(\w+)\s*\}\}/g)].map((m) => m[1] as string),
  ].map((l) => l.trim());
  const made = new Set([...expression.matchAll(/label_replace\([\s\S]*?,\s*"(\w+)",\s*"[^"]*",\s*"\w+",\s*"[^"]*"\)/g)].map((m) => m[1]));
  return [...new Set(used)].filter((l) => l !== '' && !made.has(l));
}

interface Panel {
  id: number;
  type: string;
  title: string;
  description?: string;
  datasource?: { uid?: string };
  gridPos: { x: number; y: number; w: number; h: number };
  targets?: { refId: string; expr: string; legendFormat?: string }[];
  panels?: Panel[];
}
const dashboard = JSON.parse(read('k8s/observability/grafana-dashboard.json')) as { panels: Panel[] };
const panels = dashboard.panels.flatMap((p) => [p, ...(p.panels ?? [])]);
const queries = panels.flatMap((p) => (p.targets ?? []).map((t) => ({ where: `${p.title} ${t.refId}`, expr: t.expr, legend: t.legendFormat ?? '' })));
const ruleQueries = rules.spec.groups.flatMap((g) => g.rules).map((r) => ({ where: (r as AlertRule & { expr: string }).alert ?? '', expr: String((r as { expr: unknown }).expr), legend: '' }));
const declared = declaredMetrics();

describe('dashboard', () => {
  it('has panels with unique ids, each in a place of its own on the 24 columns', () => {
    const ids = panels.map((p) => p.id);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
    const taken = new Map<string, string>();
    const overlaps: string[] = [];
    for (const p of panels) {
      const { x, y, w, h } = p.gridPos;
      expect({ panel: p.title, fits: x >= 0 && w > 0 && h > 0 && x + w <= 24 }).toEqual({ panel: p.title, fits: true });
      for (let col = x; col < x + w; col++) {
        for (let row = y; row < y + h; row++) {
          const other = taken.get(`${col},${row}`);
          if (other) overlaps.push(`${p.title} / ${other}`);
          taken.set(`${col},${row}`, p.title);
        }
      }
    }
    expect([...new Set(overlaps)]).toEqual([]);
  });

  it.each(panels.filter((p) => p.type !== 'row').map((p) => [p.title, p] as const))('%s has a description and queries of the chosen Prometheus and namespace', (_title, panel) => {
    expect(panel.description).toBeTruthy();
    expect(panel.datasource?.uid).toBe('${datasource}');
    const targets = panel.targets ?? [];
    expect(targets.length).toBeGreaterThan(0);
    expect(new Set(targets.map((t) => t.refId)).size).toBe(targets.length);
    for (const { expr } of targets) {
      // Every selector filtered by the dashboard's namespace variable.
      for (const name of metricsOf(expr)) expect({ expr, name, filtered: !new RegExp(`\\b${name}(?!\\{namespace=~"\\$namespace")`).test(expr) }).toEqual({ expr, name, filtered: true });
    }
  });
});

describe('metrics of the dashboard and the alert rules', () => {
  it('finds the metrics the services declare', () => {
    expect(declared.get('sms_batch_smpp_bind_up')).toEqual(new Set(['carrier', 'bind', ...TARGET_LABELS]));
    expect(declared.get('http_server_request_duration_seconds_bucket')).toContain('le');
  });

  it.each([...queries, ...ruleQueries].map((q) => [q.where, q] as const))('%s reads declared metrics by their labels', (_where, { expr, legend }) => {
    const names = metricsOf(expr);
    expect(names.length).toBeGreaterThan(0);
    expect(names.filter((name) => !declared.has(name))).toEqual([]);
    const known = new Set(names.flatMap((name) => [...(declared.get(name) ?? [])]));
    expect(labelsOf(expr, legend).filter((label) => !known.has(label))).toEqual([]);
  });
});
