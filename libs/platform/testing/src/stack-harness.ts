import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { stackProcesses } from './stack-processes';
import { dropSchema, openTestDataSource, requireEnv, testKafka } from './test-infra';
import { uniqueName } from './unique-name';

// The repository root, whether this runs from the sources (tests) or from dist/ (benchmarks).
const ROOT = join(__dirname, __dirname.includes('/dist/libs/') ? '../../../../..' : '../../../..');

export interface RunningStack {
  messagingUrl: string;
  agentUrl: string;
  adminUrl: string;
  adminToken: string;
  /** The SMSC simulator's inspection API (GET /messages ...), when the stack uses it. */
  smscUrl: string;
  /** Topic prefix (with trailing dot) and schema prefix the stack runs under. */
  topicPrefix: string;
  schemaPrefix: string;
  env: Record<string, string>;
  /** The launcher's process (tools/scripts/stack.mjs) when the stack was started whole: the services are its children. */
  launcherPid?: number;
  /** Creates an account through the admin API; returns its key and default sub-account. */
  createAccount(accountId?: string): Promise<{ accountId: string; subAccountId: string; apiKey: string; apiKeyId: string }>;
  stop(): Promise<void>;
}

/** Ports, prefixes, secret and environment of one stack; used to start it whole or piece by piece. */
export interface StackPlan {
  name: string;
  ports: { messaging: number; agent: number; admin: number; smsc: number; smscHttp: number; healthBase: number };
  adminToken: string;
  env: Record<string, string>;
  logDir: string;
}

export async function planStack(extraEnv: Record<string, string> = {}): Promise<StackPlan> {
  if (!existsSync(join(ROOT, 'dist/apps/api-gateway/src/main.js'))) {
    throw new Error('dist/ is missing: run `npm run build` first (npm test does)');
  }
  const name = uniqueName('e2e');
  const base = await freePortBlock();
  const ports = { messaging: base, agent: base + 1, admin: base + 2, smsc: base + 3, smscHttp: base + 4, healthBase: base + 10 };
  const adminToken = randomBytes(24).toString('hex');
  const logDir = join(ROOT, '.local/e2e-logs');
  mkdirSync(logDir, { recursive: true });
  const env: Record<string, string> = {
    DATABASE_URL: requireEnv('DATABASE_URL'),
    KAFKA_BROKERS: requireEnv('KAFKA_BROKERS'),
    KAFKA_TOPIC_PREFIX: `${name}.`,
    DATABASE_SCHEMA_PREFIX: `${name}_`,
    ADMIN_TOKEN: adminToken,
    MESSAGING_API_PORT: String(ports.messaging),
    AGENT_API_PORT: String(ports.agent),
    ADMIN_API_PORT: String(ports.admin),
    HTTP_HOST: '127.0.0.1',
    // The e2e tests (the fuzzer above all) send thousands of unauthenticated admin requests from
    // one address; the limit itself is tested on the listener (admin-authentication.int.spec.ts).
    ADMIN_AUTH_FAILURES_PER_MINUTE: '1000000',
    HEALTH_PORT_BASE: String(ports.healthBase),
    SMSC_PORT: String(ports.smsc),
    SMSC_HTTP_PORT: String(ports.smscHttp),
    DATABASE_POOL_SIZE: '5',
    KAFKAJS_NO_PARTITIONER_WARNING: '1',
    LOG_LEVEL: process.env['TEST_LOG_LEVEL'] ?? 'info',
    STACK_LOG: join(logDir, `${name}.`),
    // Fresh keyrings per stack (tools/scripts/stack.mjs lists the ones the services need).
    MESSAGE_SEALING_KEYS: testKeyring(),
    VERIFY_CODE_HASH_KEYS: testKeyring(),
    AGENT_TOKEN_SIGNING_KEYS: testKeyring(),
    WEBHOOK_SECRET_SEALING_KEYS: testKeyring(),
    // Profiling a test's stack: e.g. STACK_NODE_FLAGS='--cpu-prof --cpu-prof-dir=/tmp/prof'.
    ...(process.env['STACK_NODE_FLAGS'] ? { STACK_NODE_FLAGS: process.env['STACK_NODE_FLAGS'] } : {}),
    ...extraEnv,
  };
  return { name, ports, adminToken, env, logDir };
}

export const testKeyring = (): string => `t1:${randomBytes(32).toString('base64')}`;

/** The handle every started stack gives its tests. */
export function stackHandle(plan: StackPlan, stop: () => Promise<void>): RunningStack {
  const adminUrl = `http://127.0.0.1:${plan.ports.admin}`;
  let accounts = 0;
  return {
    messagingUrl: `http://127.0.0.1:${plan.ports.messaging}`,
    agentUrl: `http://127.0.0.1:${plan.ports.agent}`,
    adminUrl,
    adminToken: plan.adminToken,
    smscUrl: `http://127.0.0.1:${plan.ports.smscHttp}`,
    topicPrefix: `${plan.name}.`,
    schemaPrefix: `${plan.name}_`,
    env: plan.env,
    async createAccount(accountId = `acct${++accounts}${randomBytes(3).toString('hex')}`) {
      const res = await fetch(`${adminUrl}/admin/v1/accounts`, {
        method: 'POST',
        headers: { authorization: `Bearer ${plan.adminToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ accountId }),
      });
      if (res.status !== 201) throw new Error(`account creation failed: ${res.status} ${await res.text()}`);
      const body = (await res.json()) as { subAccountIds: string[]; apiKey: string; apiKeyId: string };
      return { accountId, subAccountId: body.subAccountIds[0] as string, apiKey: body.apiKey, apiKeyId: body.apiKeyId };
    },
    stop,
  };
}

/**
 * The whole platform as `npm start` runs it (tools/scripts/stack.mjs over dist/), on free ports,
 * with topic and schema prefixes of its own so that test files do not share state. `keepData`
 * leaves its schemas and topics behind at the stop, for a look at its tables afterwards.
 */
export async function startStack(extraEnv: Record<string, string> = {}, { keepData = false }: { keepData?: boolean } = {}): Promise<RunningStack> {
  const plan = await planStack(extraEnv);
  const { name, env } = plan;
  const child = spawn(process.execPath, [join(ROOT, 'tools/scripts/stack.mjs')], {
    env: { PATH: process.env['PATH'] ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  await waitForStackReady(child, `.local/e2e-logs/${name}.*`);
  const handle = stackHandle(plan, async () => {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    if (!keepData) await removeStackData(name);
  });
  return child.pid === undefined ? handle : { ...handle, launcherPid: child.pid };
}

/** Resolves when a `tools/scripts/stack.mjs` child says it is ready; rejects if it exits first. */
export function waitForStackReady(child: ChildProcess, logs: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('[stack] ready')) resolve();
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`the stack exited (${code}) before it was ready; logs: ${logs}\n${output.slice(-2000)}`)));
  });
}

/**
 * A base port for one stack: the gateway takes base..base+2 (a second replica base+5..+7), the SMSC
 * simulator base+3 (SMPP) and base+4 (HTTP), the back-end services base+10 plus their
 * healthPortOffset of tools/stack/processes.json (second replicas the port after). Drawn below Linux's ephemeral range (32768+), where outgoing connections (Kafka,
 * Postgres clients) could take a port between this check and the services' listen.
 */
export async function freePortBlock(): Promise<number> {
  for (;;) {
    const base = 10_000 + 50 * Math.floor(Math.random() * 400);
    const health = stackProcesses().flatMap((p) => (p.healthPortOffset === undefined ? [] : [base + 10 + p.healthPortOffset, base + 11 + p.healthPortOffset]));
    const ports = [base, base + 1, base + 2, base + 3, base + 4, base + 5, base + 6, base + 7, base + 8, base + 9, ...health];
    if (!ports.every(isFetchablePort)) continue;
    if ((await Promise.all(ports.map(isFree))).every(Boolean)) return base;
  }
}

/** One free port, drawn below the ephemeral range like freePortBlock's. */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = 10_000 + Math.floor(Math.random() * 20_000);
    if (isFetchablePort(port) && (await isFree(port))) return port;
  }
}

/**
 * The Fetch standard's "bad ports" above 1024: Node's fetch refuses to connect to them, so a
 * service listening there would never be seen ready by the tests (10080 was, once, agent-token's).
 */
const FETCH_BLOCKED_PORTS = new Set([1719, 1720, 1723, 2049, 3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080]);

export function isFetchablePort(port: number): boolean {
  return port > 1024 && !FETCH_BLOCKED_PORTS.has(port);
}

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** Drops what a stopped stack left behind: its schemas and its topics (CI runs many stacks on one broker). */
export async function removeStackData(name: string): Promise<void> {
  const dataSource = await openTestDataSource(1);
  try {
    const schemas: { nspname: string }[] = await dataSource.query(`SELECT nspname FROM pg_namespace WHERE nspname LIKE $1`, [`${name}\\_%`]);
    for (const { nspname } of schemas) await dropSchema(dataSource, nspname);
  } finally {
    await dataSource.destroy();
  }
  const admin = testKafka(name).kafka.admin();
  await admin.connect();
  try {
    const topics = (await admin.listTopics()).filter((topic) => topic.startsWith(`${name}.`));
    if (topics.length > 0) await admin.deleteTopics({ topics, timeout: 10_000 });
  } finally {
    await admin.disconnect();
  }
}
