// The alert rules of k8s/observability/ against their runbook and their promtool tests: every alert
// has a severity, a summary, a description and a runbook_url to its own section of docs/operations.md,
// and a promtool test where it fires and one where it stays quiet. promtool itself runs in
// tools/deploy/check-prometheus-rules.sh (npm test); this test needs no tool.
import { readFileSync } from 'node:fs';
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
