// The Kubernetes manifests (rendered as `kubectl apply -k` renders them) and the compose file
// against the services themselves (from dist/, as the images run them): every setting a service
// cannot start without is given to it and passes the validation it applies at boot; every
// Deployment scales with an autoscaler and a disruption budget; every topic the code creates has
// its KafkaTopic in k8s/components/operators/, with partitions for the most replicas allowed.
// kubeconform checks the same renderings against the Kubernetes and operator schemas
// (tools/deploy/kubeconform.sh).
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { TopicSpec } from '@seed/platform-kafka';
import { groupConsumedTopics, render, ROOT, serviceTopics, TARGETS, type Container, type K8sObject } from './manifests';

const SERVICES: Record<string, string> = {
  'api-gateway': 'dist/apps/api-gateway/src/gateway.config.js',
  'sms-batch': 'dist/apps/sms-batch/src/sms-batch.config.js',
  verification: 'dist/apps/verification/src/verification.config.js',
  'agent-token': 'dist/apps/agent-token/src/agent-token.config.js',
  'webhook-dispatcher': 'dist/apps/webhook-dispatcher/src/webhook-dispatcher.config.js',
};

/** Valid stand-ins for the values a deployment takes from its secret store. */
const secretStandIn = (name: string): string =>
  name === 'DATABASE_URL'
    ? 'postgres://seed:pw@postgres:5432/seed?sslmode=verify-full'
    : name === 'SMPP_URL'
      ? 'smpp://seed:pw@smsc.example:2775'
      : name.endsWith('_KEYS')
        ? `k1:${randomBytes(32).toString('base64')}`
        : randomBytes(24).toString('hex');

/** Loads the service's config class in a child process (as the image does); returns the problems. */
function configProblems(configFile: string, env: Record<string, string>): string[] {
  const script = `
    require('reflect-metadata');
    const { loadConfig } = require(${JSON.stringify(join(ROOT, 'dist/libs/platform/config/src/index.js'))});
    const exported = require(${JSON.stringify(join(ROOT, configFile))});
    const Schema = Object.values(exported).find((v) => typeof v === 'function' && /Config$/.test(v.name));
    try { loadConfig(Schema, JSON.parse(process.env.MANIFEST_ENV)); console.log('[]'); }
    catch (e) { console.log(JSON.stringify(e.message.split('\\n').slice(1).map((l) => l.trim()))); }`;
  const out = execFileSync(process.execPath, ['-e', script], { cwd: ROOT, env: { PATH: process.env['PATH'] ?? '', MANIFEST_ENV: JSON.stringify(env) } });
  return JSON.parse(out.toString()) as string[];
}

const rendered: Record<string, K8sObject[]> = Object.fromEntries(TARGETS.map((t) => [t, render(t)]));
const ofKind = (target: string, kind: string): K8sObject[] => (rendered[target] ?? []).filter((o) => o.kind === kind);
const example = parseAllDocuments(readFileSync(join(ROOT, 'k8s/secret.example.yaml'), 'utf8'))[0]?.toJS() as { stringData: Record<string, string> };
const exampleText = readFileSync(join(ROOT, 'k8s/secret.example.yaml'), 'utf8');
const nodeFlags = JSON.parse(readFileSync(join(ROOT, 'tools/scripts/service-node-flags.json'), 'utf8')) as string[];

function containerOf(target: string, service: string): Container {
  const deployment = ofKind(target, 'Deployment').find((d) => d.metadata.name === service);
  const container = deployment?.spec?.template?.spec.containers[0];
  if (!container) throw new Error(`no Deployment ${service} with a container in ${target}`);
  return container;
}

/** The environment the service sees: the ConfigMaps, then the env entries. */
function k8sEnv(target: string, service: string): { env: Record<string, string>; container: Container } {
  const container = containerOf(target, service);
  const env: Record<string, string> = {};
  for (const ref of container.envFrom ?? []) {
    const map = ofKind(target, 'ConfigMap').find((d) => d.metadata.name === ref.configMapRef?.name);
    Object.assign(env, map?.data ?? {});
  }
  for (const entry of container.env ?? []) {
    const ref = entry.valueFrom?.secretKeyRef;
    // An optional key is absent by default (a service without a database of its own).
    if (ref && !ref.optional) env[entry.name] = secretStandIn(entry.name);
    else if (!ref) env[entry.name] = String(entry.value);
  }
  return { env, container };
}

describe('deployment manifests', () => {
  const cases = TARGETS.flatMap((target) => Object.entries(SERVICES).map(([service, configFile]) => [target, service, configFile] as const));

  it.each(cases)('%s gives %s every setting it needs, valid, and an image command that exists', (target, service, configFile) => {
    const { env, container } = k8sEnv(target, service);
    expect(existsSync(join(ROOT, container.args[0] ?? ''))).toBe(true);
    expect(configProblems(configFile, env)).toEqual([]);
    // Each seed-secrets key it reads is one the example Secret documents: a value, or a comment for the optional ones.
    for (const entry of container.env ?? []) {
      const ref = entry.valueFrom?.secretKeyRef;
      if (ref?.name !== 'seed-secrets') continue;
      if (ref.optional) expect(exampleText).toContain(ref.key);
      else expect(Object.keys(example.stringData)).toContain(ref.key);
    }
  });

  it.each(Object.keys(SERVICES))("%s connects as its own database role and Kafka user, secure by default; node runs with the image's flags", (service) => {
    const key = service.toUpperCase().replace(/-/g, '_');
    const { env, container } = k8sEnv('k8s', service);
    const ref = (name: string) => container.env?.find((e) => e.name === name)?.valueFrom?.secretKeyRef;
    expect(ref('DATABASE_URL')).toEqual({ name: 'seed-secrets', key: `DATABASE_URL_${key}` });
    expect(ref('KAFKA_SASL_USERNAME')).toEqual({ name: 'seed-secrets', key: `KAFKA_USER_${key}` });
    expect(ref('KAFKA_SASL_PASSWORD')).toEqual({ name: 'seed-secrets', key: `KAFKA_PASSWORD_${key}` });
    expect(env).toMatchObject({ REQUIRE_SECURE_CONNECTIONS: 'true', KAFKA_SASL_MECHANISM: 'scram-sha-512', KAFKA_SSL_CA: '/etc/seed/kafka-ca/ca.crt' });
    // The example Secret's URLs pass the check the base turns on.
    expect(configProblems(SERVICES[service] as string, { ...env, DATABASE_URL: example.stringData[`DATABASE_URL_${key}`] as string })).toEqual([]);
    expect(configProblems(SERVICES[service] as string, { ...env, DATABASE_URL: 'postgres://seed:pw@postgres:5432/seed' })).toEqual([
      expect.stringContaining('REQUIRE_SECURE_CONNECTIONS is true but DATABASE_URL has sslmode=(none)'),
    ]);
    expect(container.command).toBeUndefined();
    expect(readFileSync(join(ROOT, 'docker/Dockerfile'), 'utf8')).toContain(`ENTRYPOINT ${JSON.stringify(['node', ...nodeFlags]).replace(/,/g, ', ')}`);
  });

  it.each(Object.keys(SERVICES))('%s in dev-plaintext: no Kafka user, no CA, REQUIRE_SECURE_CONNECTIONS off', (service) => {
    const { env, container } = k8sEnv('k8s/overlays/dev-plaintext', service);
    expect(container.env?.map((e) => e.name)).not.toContain('KAFKA_SASL_USERNAME');
    expect(env).toMatchObject({ REQUIRE_SECURE_CONNECTIONS: 'false', KAFKA_SASL_MECHANISM: '', KAFKA_SSL_CA: '' });
    expect(configProblems(SERVICES[service] as string, { ...env, DATABASE_URL: 'postgres://seed:pw@postgres:5432/seed' })).toEqual([]);
  });

  it('the services refuse to start without what the manifests give them (the check above can fail)', () => {
    const problems = configProblems(SERVICES['api-gateway'] as string, {});
    expect(problems.some((p) => p.startsWith('DATABASE_URL'))).toBe(true);
    expect(problems.some((p) => p.startsWith('ADMIN_TOKEN'))).toBe(true);
  });

  it.each(Object.entries(SERVICES))('docker compose gives %s every setting it needs', (service, configFile) => {
    const compose = parseAllDocuments(readFileSync(join(ROOT, 'docker/compose.yaml'), 'utf8'), { merge: true })[0]?.toJS() as {
      services: Record<string, { command: string[]; environment: Record<string, string> }>;
    };
    const definition = compose.services[service];
    expect(definition).toBeDefined();
    expect(existsSync(join(ROOT, definition!.command[0] as string))).toBe(true);
    // ${NAME:?...} and ${NAME:-default} come from docker/.env: stand in for them.
    const env = Object.fromEntries(
      Object.entries(definition!.environment).map(([k, v]) => [k, /^\$\{/.test(String(v)) ? secretStandIn(k) : String(v)]),
    );
    expect(configProblems(configFile, env)).toEqual([]);
  });
});

const matches = (selector: Record<string, string> | undefined, labels: Record<string, string>): boolean =>
  selector !== undefined && Object.keys(selector).length > 0 && Object.entries(selector).every(([k, v]) => labels[k] === v);

describe.each(TARGETS)('scaling (%s)', (target) => {
  const deployments = ofKind(target, 'Deployment');

  it('has every service, and nothing else, as a Deployment', () => {
    expect(deployments.map((d) => d.metadata.name).sort()).toEqual(Object.keys(SERVICES).sort());
  });

  it.each(Object.keys(SERVICES))('%s rolls, has CPU and memory requests, an autoscaler from 2 replicas and a disruption budget of one', (service) => {
    const deployment = deployments.find((d) => d.metadata.name === service)!;
    const spec = deployment.spec!;
    // The autoscaler owns the count: a number in the manifest would put it back at every apply.
    expect(spec.replicas).toBeUndefined();
    expect(spec.strategy?.type).toBe('RollingUpdate');
    for (const container of spec.template!.spec.containers) {
      expect(container.resources?.requests?.['cpu']).toBeDefined();
      expect(container.resources?.requests?.['memory']).toBeDefined();
    }

    const hpas = ofKind(target, 'HorizontalPodAutoscaler').filter((h) => h.spec?.scaleTargetRef?.kind === 'Deployment' && h.spec.scaleTargetRef.name === service);
    expect(hpas).toHaveLength(1);
    const hpa = hpas[0]!;
    expect(hpa.apiVersion).toBe('autoscaling/v2');
    expect(hpa.spec!.scaleTargetRef!.apiVersion).toBe('apps/v1');
    expect(hpa.spec!.minReplicas).toBeGreaterThanOrEqual(2);
    expect(hpa.spec!.maxReplicas).toBeGreaterThan(hpa.spec!.minReplicas!);
    expect(hpa.spec!.maxReplicas).toBeLessThanOrEqual(8);
    const cpu = hpa.spec!.metrics?.find((m) => m.type === 'Resource' && m.resource?.name === 'cpu');
    expect(cpu?.resource?.target).toEqual({ type: 'Utilization', averageUtilization: expect.any(Number) });

    const labels = spec.template!.metadata.labels;
    const pdbs = ofKind(target, 'PodDisruptionBudget').filter((p) => matches(p.spec?.selector?.matchLabels, labels));
    expect(pdbs).toHaveLength(1);
    const pdb = pdbs[0]!.spec!;
    expect(pdb.maxUnavailable === 1 || pdb.minAvailable === 1).toBe(true);
  });
});

describe('topics', () => {
  const topics = serviceTopics();
  const all = [...new Map(Object.values(topics).flat().map((t) => [t.name, t])).values()];
  const names = all.map((t) => t.name);
  const overlay = 'k8s/overlays/with-operators';
  const prefix = ofKind(overlay, 'ConfigMap').find((c) => c.metadata.name === 'seed-config')?.data?.['KAFKA_TOPIC_PREFIX'] ?? '';
  const kafkaTopics = new Map(ofKind(overlay, 'KafkaTopic').map((t) => [t.spec?.topicName ?? t.metadata.name, t]));
  const hpaMax = (target: string, service: string): number =>
    ofKind(target, 'HorizontalPodAutoscaler').find((h) => h.spec?.scaleTargetRef?.name === service)?.spec?.maxReplicas ?? 0;
  const bounds = Object.entries(topics).flatMap(([service, own]) => groupConsumedTopics(own, names).map((topic) => [service, topic] as const));

  it('knows which topics bound which service (every back-end service reads at least one in a shared group)', () => {
    for (const service of Object.keys(SERVICES).filter((s) => s !== 'api-gateway')) {
      expect(bounds.filter(([s]) => s === service).length).toBeGreaterThan(0);
    }
  });

  it.each(all.map((t) => [t.name, t] as const))('%s has its KafkaTopic in the operators component, with the code’s settings', (name, spec: TopicSpec) => {
    const topic = kafkaTopics.get(`${prefix}${name}`);
    expect(topic).toBeDefined();
    expect(topic!.metadata.labels?.['strimzi.io/cluster']).toBe('seed-kafka');
    expect(topic!.spec!.partitions).toBeGreaterThanOrEqual(spec.partitions);
    expect(topic!.spec!.replicas).toBe(Number(ofKind(overlay, 'ConfigMap').find((c) => c.metadata.name === 'seed-config')?.data?.['KAFKA_REPLICATION_FACTOR']));
    expect(topic!.spec!.config).toEqual({ 'retention.ms': spec.retentionMs, 'max.message.bytes': spec.maxMessageBytes ?? 1024 * 1024 });
  });

  it('declares no KafkaTopic the code does not create', () => {
    expect([...kafkaTopics.keys()].sort()).toEqual(names.map((n) => `${prefix}${n}`).sort());
  });

  it.each(bounds)('%s: its autoscaler allows no more replicas than %s has partitions (operators component)', (service, topic) => {
    expect(hpaMax(overlay, service)).toBeLessThanOrEqual(kafkaTopics.get(`${prefix}${topic}`)!.spec!.partitions!);
  });

  it.each(bounds)('%s: its autoscaler allows no more replicas than the code gives %s partitions', (service, topic) => {
    expect(hpaMax('k8s', service)).toBeLessThanOrEqual(all.find((t) => t.name === topic)!.partitions);
  });
});
