// tools/deploy/policy-check.sh: the rendered k8s/ and docker/Dockerfile pass the Rego policies of
// tools/deploy/policy/, and every rule of them fails on a manifest or Dockerfile that breaks it (a
// policy that cannot fail checks nothing). conftest is installed on first use
// (tools/scripts/ensure-conftest.sh, a few minutes the first time on a machine).
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { render, ROOT, TARGETS, type K8sObject } from './manifests';

jest.setTimeout(900_000);

const POLICY = join(ROOT, 'tools/deploy/policy');
let conftest = '';
let dir = '';

beforeAll(() => {
  conftest = execFileSync('bash', [join(ROOT, 'tools/scripts/ensure-conftest.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim();
  dir = mkdtempSync(join(tmpdir(), 'seed-policy-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** conftest over the objects as one rendering; the rule names of its findings. */
function manifestFindings(objects: unknown[]): string[] {
  const file = join(dir, 'rendered.yaml');
  writeFileSync(file, objects.map((o) => stringify(o)).join('---\n'));
  const run = spawnSync(conftest, ['test', '--no-color', '--combine', '--policy', POLICY, '--namespace', 'main', '--data', join(POLICY, 'exceptions.yaml'), file], { encoding: 'utf8' });
  return findings(run.stdout + run.stderr, run.status);
}

function dockerfileFindings(text: string): string[] {
  const file = join(dir, 'Dockerfile');
  writeFileSync(file, text);
  const run = spawnSync(conftest, ['test', '--no-color', '--parser', 'dockerfile', '--policy', POLICY, '--namespace', 'dockerfile', file], { encoding: 'utf8' });
  return findings(run.stdout + run.stderr, run.status);
}

function findings(output: string, status: number | null): string[] {
  const rules = [...output.matchAll(/^FAIL - .*? - [a-z]+ - \[([a-z-]+)\]/gm)].map((m) => m[1] as string);
  // Exit 1 exactly when there are findings; anything else (a Rego error, an unparsable file) is a failure of the test.
  if (status !== (rules.length > 0 ? 1 : 0)) throw new Error(`conftest exited ${status}:\n${output}`);
  return [...new Set(rules)].sort();
}

const base = (): K8sObject[] => render('k8s');
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the tests below reach into and break arbitrary fields
type Pod = { automountServiceAccountToken?: boolean; securityContext?: Record<string, unknown>; containers: Record<string, any>[] };
const podOf = (objects: K8sObject[], name: string): Pod =>
  (objects.find((o) => o.kind === 'Deployment' && o.metadata.name === name)?.spec?.template?.spec as unknown as Pod) ??
  (() => {
    throw new Error(`no Deployment ${name}`);
  })();
const without = (objects: K8sObject[], kind: string, name: string): K8sObject[] => objects.filter((o) => !(o.kind === kind && o.metadata.name === name));

describe('policy check of the manifests', () => {
  it.each(TARGETS)('%s passes', (target) => {
    expect(manifestFindings(render(target))).toEqual([]);
  });

  it('passes through tools/deploy/policy-check.sh, on every overlay and the Dockerfile', () => {
    const run = spawnSync('bash', [join(ROOT, 'tools/deploy/policy-check.sh')], { encoding: 'utf8' });
    expect(run.stderr).not.toMatch(/breaks the policy/);
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/\[policy\] k8s\/overlays\/with-operators: .*0 failures/);
    expect(run.stdout).toMatch(/\[policy\] k8s\/overlays\/dev-plaintext: .*0 failures/);
    expect(run.stdout).toMatch(/\[policy\] docker\/Dockerfile: .*0 failures/);
  });

  it('every Deployment runs without a service-account token, and no service talks to the Kubernetes API', () => {
    for (const d of base().filter((o) => o.kind === 'Deployment')) expect([d.metadata.name, podOf([d], d.metadata.name).automountServiceAccountToken]).toEqual([d.metadata.name, false]);
    const grep = spawnSync('grep', ['-rlE', '@kubernetes/client-node|/var/run/secrets/kubernetes.io|KUBERNETES_SERVICE_HOST', 'apps', 'libs', 'package.json'], { cwd: ROOT, encoding: 'utf8' });
    expect(grep.stdout).toBe('');
  });

  const cases: [string, (o: K8sObject[]) => K8sObject[]][] = [
    ['no-automount-token', (o) => (delete podOf(o, 'sms-batch').automountServiceAccountToken, o)],
    ['run-as-non-root', (o) => (delete podOf(o, 'verification').securityContext!['runAsNonRoot'], o)],
    ['no-privilege-escalation', (o) => (delete podOf(o, 'agent-token').containers[0]!['securityContext'].allowPrivilegeEscalation, o)],
    ['read-only-root-fs', (o) => ((podOf(o, 'api-gateway').containers[0]!['securityContext'].readOnlyRootFilesystem = false), o)],
    ['drop-all-capabilities', (o) => ((podOf(o, 'api-gateway').containers[0]!['securityContext'].capabilities = { drop: ['NET_RAW'] }), o)],
    ['no-privileged', (o) => ((podOf(o, 'api-gateway').containers[0]!['securityContext'].privileged = true), o)],
    ['seccomp-runtime-default', (o) => (delete podOf(o, 'sms-batch').securityContext!['seccompProfile'], o)],
    ['no-host-namespaces', (o) => (((podOf(o, 'sms-batch') as Record<string, unknown>)['hostNetwork'] = true), o)],
    ['resource-requests', (o) => (delete podOf(o, 'webhook-dispatcher').containers[0]!['resources'].requests.cpu, o)],
    ['memory-limit', (o) => (delete podOf(o, 'webhook-dispatcher').containers[0]!['resources'].limits.memory, o)],
    ['image-pinned', (o) => ((podOf(o, 'sms-batch').containers[0]!['image'] = 'registry.example.com/seed-messaging:latest'), o)],
    ['image-pinned', (o) => ((podOf(o, 'sms-batch').containers[0]!['image'] = 'registry.example.com:5000/seed-messaging'), o)],
    ['default-deny-ingress', (o) => without(o, 'NetworkPolicy', 'default-deny-ingress')],
    ['network-policy-ports', (o) => without(o, 'NetworkPolicy', 'seed-health-and-metrics')],
    ['network-policy-ports', (o) => without(o, 'NetworkPolicy', 'api-gateway-admin')],
    [
      'admin-not-exposed',
      (o) => {
        const ingress = o.find((x) => x.kind === 'Ingress') as unknown as { spec: { rules: { http: { paths: unknown[] } }[] } };
        ingress.spec.rules[0]!.http.paths.push({ path: '/admin/', pathType: 'Prefix', backend: { service: { name: 'api-gateway', port: { name: 'admin' } } } });
        return o;
      },
    ],
    [
      'admin-from-ingress-only',
      (o) => {
        const policy = o.find((x) => x.kind === 'NetworkPolicy' && x.metadata.name === 'api-gateway-admin') as unknown as { spec: { ingress: { from: unknown[] }[] } };
        policy.spec.ingress[0]!.from.push({ podSelector: {} });
        return o;
      },
    ],
    [
      'secure-connections',
      (o) => {
        o.find((x) => x.kind === 'ConfigMap' && x.metadata.name === 'seed-config')!.data!['REQUIRE_SECURE_CONNECTIONS'] = 'false';
        return o;
      },
    ],
    [
      'admin-not-exposed',
      (o) => {
        // An allowlisted Ingress that also routes a public API is not an admin Ingress.
        const ingress = render('k8s/overlays/with-admin-ingress').find((x) => x.kind === 'Ingress' && x.metadata.name === 'seed-messaging-admin') as unknown as {
          spec: { rules: { http: { paths: unknown[] } }[] };
        };
        ingress.spec.rules[0]!.http.paths.push({ path: '/sms/', pathType: 'Prefix', backend: { service: { name: 'api-gateway', port: { name: 'messaging' } } } });
        return [...o, ingress as unknown as K8sObject];
      },
    ],
    ['cpu-limit', (o) => [...o, { ...o.find((x) => x.kind === 'Deployment' && x.metadata.name === 'sms-batch')!, metadata: { name: 'new-service' } }]],
  ];

  it.each(cases)('finds %s when broken', (rule, breakIt) => {
    expect(manifestFindings(breakIt(base()))).toEqual([rule]);
  });

  it('waives a rule only for the objects exceptions.yaml names, each with a reason', () => {
    const { exceptions } = parse(readFileSync(join(POLICY, 'exceptions.yaml'), 'utf8')) as {
      exceptions: { rule: string; kind: string; names: string[]; reason: string }[];
    };
    for (const e of exceptions) expect(e.reason.length).toBeGreaterThan(40);
    expect(exceptions.map((e) => e.rule)).toEqual(['cpu-limit']);
  });
});

describe('policy check of the Dockerfile', () => {
  const dockerfile = readFileSync(join(ROOT, 'docker/Dockerfile'), 'utf8');

  it('passes, and names an exact Node version in every FROM', () => {
    expect(dockerfileFindings(dockerfile)).toEqual([]);
    expect(dockerfile.match(/^FROM .*/gm)).toEqual(['FROM node:20.20.2-bookworm-slim AS build', 'FROM node:20.20.2-bookworm-slim']);
  });

  it.each([
    ['a floating tag', dockerfile.replace('FROM node:20.20.2-bookworm-slim AS build', 'FROM node:20-bookworm-slim AS build'), ['base-image-pinned']],
    ['no tag', dockerfile.replace(/^FROM node:20\.20\.2-bookworm-slim$/m, 'FROM node'), ['base-image-pinned']],
    ['latest', dockerfile.replace(/^FROM node:20\.20\.2-bookworm-slim$/m, 'FROM node:latest'), ['base-image-pinned']],
    ['npm install', dockerfile.replace('RUN npm ci ', 'RUN npm install '), ['npm-ci']],
    ['a digest', dockerfile.replace(/^FROM node:20\.20\.2-bookworm-slim$/m, `FROM node:20-bookworm-slim@sha256:${'0'.repeat(64)}`), []],
    ['a later stage built on an earlier one', `${dockerfile}\nFROM build AS extra\n`, []],
  ])('%s', (_, text, expected) => {
    expect(dockerfileFindings(text)).toEqual(expected);
  });
});
