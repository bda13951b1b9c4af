// The Kubernetes manifests and the compose file against the services' own config classes (from
// dist/, as the images run them): every setting a service cannot start without is given to it,
// and the values they set pass the same validation the service applies at boot.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';

const ROOT = join(__dirname, '../..');

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
    ? 'postgres://seed:pw@postgres:5432/seed'
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

interface Container {
  args: string[];
  envFrom?: { configMapRef?: { name: string } }[];
  env?: { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }[];
}
type Doc = { kind?: string; metadata?: { name?: string }; data?: Record<string, string>; spec?: { template: { spec: { containers: Container[] } } } };
const k8sDocs: Doc[] = readdirSync(join(ROOT, 'k8s'))
  .filter((f) => f.endsWith('.yaml') && f !== 'secret.example.yaml')
  .flatMap((f) => parseAllDocuments(readFileSync(join(ROOT, 'k8s', f), 'utf8')).map((d) => d.toJS() as Doc));

function k8sEnv(service: string): { env: Record<string, string>; secrets: string[]; main: string } {
  const deployment = k8sDocs.find((d) => d.kind === 'Deployment' && d.metadata?.name === service);
  if (!deployment) throw new Error(`no Deployment ${service} in k8s/`);
  const container = deployment.spec?.template.spec.containers[0];
  if (!container) throw new Error(`Deployment ${service} has no container`);
  const env: Record<string, string> = {};
  for (const ref of container.envFrom ?? []) {
    const map = k8sDocs.find((d) => d.kind === 'ConfigMap' && d.metadata?.name === ref.configMapRef?.name);
    Object.assign(env, map?.data ?? {});
  }
  const secrets: string[] = [];
  for (const entry of container.env ?? []) {
    if (entry.valueFrom?.secretKeyRef) {
      secrets.push(entry.name);
      env[entry.name] = secretStandIn(entry.name);
    } else env[entry.name] = String(entry.value);
  }
  return { env, secrets, main: container.args[0] ?? '' };
}

describe('deployment manifests', () => {
  it.each(Object.entries(SERVICES))('k8s gives %s every setting it needs, valid, and an image command that exists', (service, configFile) => {
    const { env, secrets, main } = k8sEnv(service);
    expect(existsSync(join(ROOT, main))).toBe(true);
    expect(configProblems(configFile, env)).toEqual([]);
    // Each secret it is given is one the example Secret documents.
    const example = parseAllDocuments(readFileSync(join(ROOT, 'k8s/secret.example.yaml'), 'utf8'))[0]?.toJS() as { stringData: Record<string, string> };
    for (const name of secrets) expect(Object.keys(example.stringData)).toContain(name);
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

describe('the image', () => {
  it('runs the services with the node flags npm start and the end-to-end stacks use', () => {
    const flags = JSON.parse(readFileSync(join(ROOT, 'tools/scripts/service-node-flags.json'), 'utf8')) as string[];
    const entrypoint = /^ENTRYPOINT\s+(\[.*\])\s*$/m.exec(readFileSync(join(ROOT, 'docker/Dockerfile'), 'utf8'))?.[1];
    expect(entrypoint).toBeDefined();
    expect(JSON.parse(entrypoint as string)).toEqual(['node', ...flags]);
  });
});
