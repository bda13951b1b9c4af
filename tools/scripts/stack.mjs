// Starts every process of tools/stack/processes.json from dist/ as child processes, waits until each
// one is ready, and stops them all on Ctrl-C / SIGTERM. Used by `npm start`, by the end-to-end tests
// that take the stack whole (startStack) and by `npm run bench:webhooks`.
// Environment: what the services read (DATABASE_URL, KAFKA_BROKERS, ADMIN_TOKEN, ports, ...), plus
//   HEALTH_PORT_BASE  first health/metrics port of the back-end services (default 3110; each adds its
//                     healthPortOffset of tools/stack/processes.json)
//   STACK_NODE_FLAGS  extra node flags for every service, e.g. '--cpu-prof --cpu-prof-dir=/tmp/prof'
//                     (after those of service-node-flags.json, which the image's entrypoint also uses)
//   STACK_LOG         unset: every service logs JSON to this process's stdout; else a path prefix:
//                     each service appends to <prefix><service>.log
//   SERVICE_REPLICAS  processes of every service (default 1, at most 9): back-end replica i takes its
//                     service's health port + i - 1; gateway replica i listens on each API port
//                     + (i - 1) * GATEWAY_PORT_STEP (default 10: 3010, 3011, 3012 for the second)
//   SMSC_INSTANCES    SMSC simulators to start when no SMPP_URL is given (default 1, at most 4): instance i
//                     is named smsc-simulator-<i> (the first keeps smsc-simulator) and listens on SMSC_PORT
//                     and SMSC_HTTP_PORT + (i - 1) * SMSC_PORT_STEP (default 10: 2785 and 2786 for the
//                     second). All share SMSC_SYSTEM_ID and SMSC_PASSWORD; only the first is SMPP_URL, the
//                     others wait to be registered as carriers (the banner lists them, `smscInstances` too)
//   DATABASE_URL_<SERVICE>  that service's database URL (its own role: `npm run db:roles -- --out FILE`)
//   <SERVICE>__<NAME> NAME for that service only, e.g. SMS_BATCH__LOG_LEVEL
//   KAFKA_CREDENTIALS_DIR  each service authenticates as its own SCRAM user (its kafkaUser in
//                     tools/stack/processes.json, seed-<service>), password in <dir>/<user>.password
//                     (infra.sh with KAFKA_SECURITY=scram-tls writes them)
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const env = process.env;
const healthBase = Number(env.HEALTH_PORT_BASE ?? 3110);
const serviceNodeFlags = JSON.parse(readFileSync(join(root, 'tools/scripts/service-node-flags.json'), 'utf8'));
const manifest = JSON.parse(readFileSync(join(root, 'tools/stack/processes.json'), 'utf8')).processes;
const simulatorMain = manifest.find((p) => p.role === 'simulator');

// Keyrings the services require (see the README's configuration table). A production deployment
// sets them (k8s/ reads them from a Secret); locally, any not given is generated once into
// .local/dev-secrets.json, so that codes, tokens and sealed texts stay valid across restarts.
export const DEV_SECRETS = ['MESSAGE_SEALING_KEYS', 'VERIFY_CODE_HASH_KEYS', 'AGENT_TOKEN_SIGNING_KEYS', 'WEBHOOK_SECRET_SEALING_KEYS'];
const missing = DEV_SECRETS.filter((name) => !env[name]);
if (missing.length > 0) {
  const file = join(root, '.local/dev-secrets.json');
  const stored = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {};
  for (const name of missing) stored[name] ??= `dev1:${randomBytes(32).toString('base64')}`;
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(stored, null, 2), { mode: 0o600 });
  for (const name of missing) env[name] = stored[name];
}

// Without SMPP_URL the platform sends to the SMSC simulator(s), started first as services of their own.
const simulated = !env.SMPP_URL;
const smscPort = Number(env.SMSC_PORT ?? 2775);
const smscHttpPort = Number(env.SMSC_HTTP_PORT ?? 2776);
const smscCount = Number(env.SMSC_INSTANCES || 1);
const smscStep = Number(env.SMSC_PORT_STEP || 10);
if (!Number.isInteger(smscCount) || smscCount < 1 || smscCount > 4) {
  console.error(`[stack] SMSC_INSTANCES must be a whole number from 1 to 4, not ${env.SMSC_INSTANCES}`);
  process.exit(1);
}
if (!Number.isInteger(smscStep) || smscStep < 1) {
  console.error(`[stack] SMSC_PORT_STEP must be a whole number above 0, not ${env.SMSC_PORT_STEP}`);
  process.exit(1);
}
if (!simulated && smscCount > 1) console.error('[stack] SMSC_INSTANCES ignored: SMPP_URL names the carrier, no simulator starts');
// The simulators' inspection API listens on loopback unless SMSC_HTTP_HOST names another address.
const smscHttpHost = ['', '0.0.0.0', '::'].includes(env.SMSC_HTTP_HOST ?? '') ? '127.0.0.1' : env.SMSC_HTTP_HOST;

/** Simulator instance `i` (from 1): the first keeps the simulator's name and ports. */
function smscInstance(i) {
  const offset = (i - 1) * smscStep;
  const smppPort = smscPort + offset;
  const httpPort = smscHttpPort + offset;
  const httpUrl = `http://${smscHttpHost.includes(':') ? `[${smscHttpHost}]` : smscHttpHost}:${httpPort}`;
  return {
    name: i === 1 ? 'smsc-simulator' : `smsc-simulator-${i}`,
    smppPort,
    httpPort,
    smppUrl: `smpp://${env.SMSC_SYSTEM_ID ?? 'seed'}:${env.SMSC_PASSWORD ?? 'secret'}@127.0.0.1:${smppPort}`,
    httpUrl,
    env: {
      SMSC_PORT: String(smppPort),
      SMSC_HTTP_PORT: String(httpPort),
      // Each its own id range (2^28 ids wide), so that a carrier message id never names messages at
      // two simulators, whatever a failover test sends where.
      ...(smscCount > 1 ? { SMSC_MESSAGE_ID_START: String(i * 0x10000000 + Math.floor(Math.random() * 0x8000000)) } : {}),
    },
  };
}

/** The simulators this stack starts, first = SMPP_URL: `{ name, smppPort, httpPort, smppUrl, httpUrl }` each. */
export const smscInstances = simulated ? Array.from({ length: smscCount }, (_, i) => smscInstance(i + 1)) : [];
if (simulated) env.SMPP_URL = smscInstances[0].smppUrl;

const replicas = Number(env.SERVICE_REPLICAS ?? 1);
if (!Number.isInteger(replicas) || replicas < 1 || replicas > 9) {
  console.error(`[stack] SERVICE_REPLICAS must be a whole number from 1 to 9, not ${env.SERVICE_REPLICAS}`);
  process.exit(1);
}
// SMPP_BINDS is the `default` carrier's sessions across every sms-batch replica: one per replica
// unless set, so that each replica sends as it would alone.
env.SMPP_BINDS ??= String(replicas);
const gatewayStep = Number(env.GATEWAY_PORT_STEP ?? 10);
const apiPorts = { MESSAGING_API_PORT: Number(env.MESSAGING_API_PORT ?? 3000), AGENT_API_PORT: Number(env.AGENT_API_PORT ?? 3001), ADMIN_API_PORT: Number(env.ADMIN_API_PORT ?? 3002) };

/** Replica `i` (from 1) of a service: the first keeps the service's name and ports. */
function replica(service, i) {
  const name = i === 1 ? service.name : `${service.name}-${i}`;
  if (service.role !== 'gateway') return { ...service, name, port: service.port + i - 1 };
  const ports = Object.fromEntries(Object.entries(apiPorts).map(([key, port]) => [key, String(port + (i - 1) * gatewayStep)]));
  return { ...service, name, port: Number(ports.ADMIN_API_PORT), env: ports };
}

export const services = [
  // `port` is the inspection API's (the health check's), `smppPort` the SMPP listener's.
  ...smscInstances.map(({ name, httpPort, smppPort, env: instanceEnv }) => ({
    name, app: simulatorMain.name, role: 'simulator', port: httpPort, smppPort, main: simulatorMain.main, health: simulatorMain.health, healthHost: smscHttpHost, env: instanceEnv,
  })),
  ...manifest
    .filter((p) => p.role !== 'simulator')
    .map((p) => ({
      name: p.name,
      app: p.name,
      role: p.role,
      main: p.main,
      health: p.health,
      kafkaUser: p.kafkaUser,
      ...(p.role === 'gateway'
        ? // Health checked on the admin listener, which binds ADMIN_HTTP_HOST (loopback by default).
          { port: apiPorts.ADMIN_API_PORT, healthHost: ['', '0.0.0.0', '::'].includes(env.ADMIN_HTTP_HOST ?? '') ? '127.0.0.1' : env.ADMIN_HTTP_HOST }
        : { port: healthBase + p.healthPortOffset }),
    }))
    .flatMap((service) => Array.from({ length: replicas }, (_, i) => replica(service, i + 1))),
];

// Simulator instances add listeners next to the services' (in the e2e tests' port blocks too): a
// shared port would only show up as one process exiting at start-up, so name it before starting.
const listeners = new Map();
for (const service of services) {
  const ports = service.smppPort ? [service.smppPort, service.port] : service.role === 'gateway' && service.env ? Object.values(service.env).map(Number) : [service.port];
  for (const port of ports) {
    if (listeners.has(port)) {
      console.error(`[stack] ${service.name} and ${listeners.get(port)} would both listen on port ${port}: change SMSC_PORT, SMSC_HTTP_PORT or SMSC_PORT_STEP`);
      process.exit(1);
    }
    listeners.set(port, service.name);
  }
}

const children = new Map();
let stopping = false;

// What one service is given alone: its Kafka user, then any <SERVICE>__<NAME> setting.
function ownSettings(app, kafkaUser) {
  const own = {};
  const passwordFile = env.KAFKA_CREDENTIALS_DIR && kafkaUser && join(env.KAFKA_CREDENTIALS_DIR, `${kafkaUser}.password`);
  if (passwordFile && existsSync(passwordFile)) {
    Object.assign(own, { KAFKA_SASL_MECHANISM: 'scram-sha-512', KAFKA_SASL_USERNAME: kafkaUser, KAFKA_SASL_PASSWORD: readFileSync(passwordFile, 'utf8').trim() });
  }
  const key = app.toUpperCase().replaceAll('-', '_');
  // DATABASE_URL_<SERVICE>, as in k8s/ and as `npm run db:roles -- --out` writes it: its own role.
  if (env[`DATABASE_URL_${key}`]) own.DATABASE_URL = env[`DATABASE_URL_${key}`];
  for (const [name, value] of Object.entries(env)) if (name.startsWith(`${key}__`)) own[name.slice(key.length + 2)] = value;
  return own;
}

function start(service) {
  const { app, role } = service;
  const childEnv = { ...env, ...(role === 'service' ? { HEALTH_PORT: String(service.port) } : {}), ...service.env, ...(role === 'simulator' ? {} : ownSettings(app, service.kafkaUser)) };
  const main = join(root, service.main);
  const flags = (env.STACK_NODE_FLAGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...serviceNodeFlags, ...flags, main], {
    env: childEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
    // Own process group: Ctrl-C reaches only this launcher, which then stops each service with
    // one SIGTERM (a second signal during a graceful shutdown would cut it short).
    detached: true,
  });
  const sink = env.STACK_LOG
    ? createWriteStream(`${env.STACK_LOG}${service.name}.log`, { flags: 'a' })
    : process.stdout;
  if (sink === process.stdout) process.stdout.setMaxListeners(0); // two pipes per service
  child.stdout.pipe(sink, { end: false });
  child.stderr.pipe(sink, { end: false });
  child.on('exit', (code, signal) => {
    children.delete(service.name);
    if (!stopping) {
      console.error(`[stack] ${service.name} exited (${signal ?? code}); stopping the stack`);
      void stop(1);
    }
  });
  children.set(service.name, child);
}

async function waitReady(service, deadline) {
  while (Date.now() < deadline) {
    if (!children.has(service.name)) throw new Error(`${service.name} exited during start-up`);
    try {
      const host = service.healthHost ?? '127.0.0.1';
      const res = await fetch(`http://${host.includes(':') ? `[${host}]` : host}:${service.port}${service.health}`);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${service.name} was not ready in time`);
}

async function stop(code) {
  if (stopping) return;
  stopping = true;
  const timer = setTimeout(() => {
    for (const child of children.values()) child.kill('SIGKILL');
  }, 15_000);
  // Services first (they finish their work), the carrier simulator last (it still answers them).
  const order = [services.filter((s) => s.role !== 'simulator'), services.filter((s) => s.role === 'simulator')];
  for (const group of order) {
    const running = group.map((s) => children.get(s.name)).filter(Boolean);
    const exits = running.map((child) => new Promise((r) => (child.exitCode !== null ? r() : child.once('exit', r))));
    for (const child of running) child.kill('SIGTERM');
    await Promise.all(exits);
  }
  clearTimeout(timer);
  process.exit(code);
}

process.on('SIGINT', () => void stop(0));
process.on('SIGTERM', () => void stop(0));

const deadline = Date.now() + Number(env.STACK_START_TIMEOUT_MS ?? 90_000);
try {
  for (const service of services) start(service);
  await Promise.all(services.map((s) => waitReady(s, deadline)));
  console.log(`[stack] ready: ${services.map((s) => s.name).join(', ')}`);
  if (env.STACK_BANNER) printBanner();
} catch (error) {
  console.error(`[stack] ${error.message}`);
  await stop(1);
}

function printBanner() {
  const host = env.HTTP_HOST && env.HTTP_HOST !== '0.0.0.0' ? env.HTTP_HOST : 'localhost';
  // The admin listener binds loopback unless ADMIN_HTTP_HOST says otherwise (HTTP_HOST does not apply).
  const adminHost = (env.ADMIN_HTTP_HOST ?? '127.0.0.1') === '0.0.0.0' ? 'localhost' : (env.ADMIN_HTTP_HOST ?? '127.0.0.1');
  console.log(`
  Messaging API  http://${host}:${env.MESSAGING_API_PORT ?? 3000}   (POST /sms/v1/{subAccountId}/many)
  Agent API      http://${host}:${env.AGENT_API_PORT ?? 3001}
  Admin API      http://${adminHost}:${env.ADMIN_API_PORT ?? 3002}   (Authorization: Bearer <ADMIN_TOKEN>, kept in .local/admin-token)${
    replicas > 1 ? `\n  Replicas       ${replicas} of every service; gateway replica i adds ${gatewayStep} x (i - 1) to each port above` : ''
  }
  Carrier        ${simulated ? `SMSC simulator on smpp://127.0.0.1:${smscPort}; what it received: ${smscInstances[0].httpUrl}/messages` : 'SMPP_URL'}${
    smscInstances.length > 1 ? `\n  More SMSCs     not used until registered as carriers (same system_id and password):${smscInstances.slice(1).map(printedInstance).join('')}` : ''
  }

  Create an account and its first API key:
    npm run admin -- create-account acme
  Then send a batch:
    curl -s http://${host}:${env.MESSAGING_API_PORT ?? 3000}/sms/v1/acme_hq/many -H "Authorization: Bearer <apiKey>" \\
      -H 'Content-Type: application/json' -d '{"template":{"text":"Hello"},"messages":[{"destination":"+447911123456"}]}'

  Ctrl-C stops everything.
`);
}

function printedInstance({ name, smppUrl, httpUrl }) {
  // A password of one's own stays out of the terminal; the default one is in the README anyway.
  const url = env.SMSC_PASSWORD ? smppUrl.replace(/:[^:@/]*@/, ':<SMSC_PASSWORD>@') : smppUrl;
  return `\n    ${name.padEnd(18)} ${url}   received: ${httpUrl}/messages`;
}
