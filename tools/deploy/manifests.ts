// What the manifest checks read: k8s/ rendered as `kubectl apply -k` renders it, and the topics the
// services create at start, taken from their ServiceDefinitions in dist/ (as the images run them).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { TopicSpec } from '@seed/platform-kafka';

export const ROOT = join(__dirname, '../..');

/** The kustomizations users apply: the platform alone, with its Kafka and PostgreSQL by operators, with its admin Ingress, and plaintext for development. */
export const TARGETS = ['k8s', 'k8s/overlays/with-operators', 'k8s/overlays/with-admin-ingress', 'k8s/overlays/dev-plaintext'] as const;

export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string; optional?: boolean } };
}
export interface Container {
  name: string;
  command?: string[];
  args: string[];
  envFrom?: { configMapRef?: { name: string } }[];
  env?: EnvVar[];
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
}
export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  data?: Record<string, string>;
  // The fields the checks read, of the kinds they read them from.
  spec?: {
    replicas?: number;
    strategy?: { type: string };
    selector?: { matchLabels?: Record<string, string> };
    template?: { metadata: { labels: Record<string, string> }; spec: { containers: Container[] } };
    scaleTargetRef?: { apiVersion: string; kind: string; name: string };
    minReplicas?: number;
    maxReplicas?: number;
    metrics?: { type: string; resource?: { name: string; target: { type: string; averageUtilization?: number } } }[];
    maxUnavailable?: number | string;
    minAvailable?: number | string;
    topicName?: string;
    partitions?: number;
    config?: Record<string, string | number>;
  };
}

/** `kubectl kustomize`, or the kustomize tools/scripts/ensure-kubeconform.sh installs where kubectl is missing. */
export function render(target: string): K8sObject[] {
  const kustomize = join(ROOT, '.local/bin/kustomize');
  let yaml: string;
  try {
    yaml = execFileSync('kubectl', ['kustomize', join(ROOT, target)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    if (!existsSync(kustomize)) throw new Error('neither kubectl nor .local/bin/kustomize: run tools/scripts/ensure-kubeconform.sh');
    yaml = execFileSync(kustomize, ['build', join(ROOT, target)], { encoding: 'utf8' });
  }
  return parseAllDocuments(yaml)
    .map((d) => d.toJS() as K8sObject | null)
    .filter((d): d is K8sObject => d !== null);
}

/** Each deployed service's ServiceDefinition file, from the stack's manifest (tools/stack/processes.json). */
export const SERVICE_DEFINITIONS: Record<string, string> = Object.fromEntries(
  (JSON.parse(readFileSync(join(ROOT, 'tools/stack/processes.json'), 'utf8')) as { processes: { name: string; definition?: string }[] }).processes.flatMap((p) =>
    p.definition ? [[p.name, p.definition]] : [],
  ),
);

/** The `topics` of every service's ServiceDefinition (each creates them at start when missing). */
export function serviceTopics(): Record<string, TopicSpec[]> {
  const script = `
    require('reflect-metadata');
    const files = JSON.parse(process.env.DEFINITIONS);
    const topics = {};
    for (const [service, file] of Object.entries(files)) {
      const definition = Object.values(require(file)).find((v) => v && Array.isArray(v.topics) && typeof v.schema === 'string');
      if (!definition) throw new Error('no ServiceDefinition exported by ' + file);
      topics[service] = definition.topics;
    }
    console.log(JSON.stringify(topics));`;
  const definitions = Object.fromEntries(Object.entries(SERVICE_DEFINITIONS).map(([s, f]) => [s, join(ROOT, f)]));
  const out = execFileSync(process.execPath, ['-e', script], {
    cwd: ROOT,
    env: { PATH: process.env['PATH'] ?? '', DEFINITIONS: JSON.stringify(definitions), LOG_LEVEL: 'silent' },
  });
  return JSON.parse(out.toString()) as Record<string, TopicSpec[]>;
}

/**
 * The topics a service reads in a consumer group its replicas share, whose partitions therefore
 * bound how many replicas have work. Every such consumer dead-letters to `<topic>.dlq` or
 * `<topic>.<group>.dlq` (docs: consumers handle, retry or dead-letter), and the service declares that
 * topic; reply topics are read by each replica in a group of its own and have no dead letters.
 */
export function groupConsumedTopics(own: readonly TopicSpec[], all: readonly string[]): string[] {
  const sources = all.filter((name) => !name.endsWith('.dlq'));
  return own
    .filter((t) => t.name.endsWith('.dlq'))
    .map((dlq) => sources.filter((s) => dlq.name.startsWith(`${s}.`)).sort((a, b) => b.length - a.length)[0])
    .filter((s): s is string => s !== undefined);
}
