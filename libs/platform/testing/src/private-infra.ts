import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { connect } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './stack-harness';

const run = promisify(execFile);
// The repository root, whether this runs from the sources (tests) or from dist/ (benchmarks).
const ROOT = join(__dirname, __dirname.includes('/dist/libs/') ? '../../../../..' : '../../../..');
const INFRA = join(ROOT, 'tools/infra/infra.sh');

/**
 * A PostgreSQL or Kafka of a test's own, started by tools/infra/infra.sh in a folder of its own on
 * free ports. The fault tests stop and start it under load; on the shared infrastructure that would
 * fail every other test file running at the same time.
 */
export interface PrivateInfra {
  /** `KAFKA_BROKERS` or `DATABASE_URL` for the services. */
  readonly address: string;
  /** Starts it (again): resolves once it answers, as `infra.sh up` does. Data is kept across restarts. */
  up(): Promise<void>;
  /** Starts it without waiting; `up()` afterwards waits for the same start. */
  upInBackground(): void;
  /** Resolves as soon as its port accepts a connection (long before it can serve anything). */
  listening(timeoutMs?: number): Promise<void>;
  /** Stops it (a clean shutdown), keeping its data. */
  down(): Promise<void>;
  /** Stops it and deletes its folder. */
  remove(): Promise<void>;
  /** What `up` wrote to its infra.env (KAFKA_BROKERS, and KAFKA_SSL_CA, KAFKA_CREDENTIALS_DIR for a secure broker). */
  settings(): Record<string, string>;
}

/** A broker of the test's own; `{ KAFKA_SECURITY: 'scram-tls' }` makes it TLS + SCRAM + ACLs only (tools/infra/kafka/secure.sh). */
export async function privateKafka(settings: { KAFKA_SECURITY?: 'scram-tls' } = {}): Promise<PrivateInfra> {
  const port = await freePort();
  const controller = await freePort();
  return privateInfra('kafka', port, { ...settings, KAFKA_PORT: String(port), KAFKA_CONTROLLER_PORT: String(controller), DATABASE_URL: 'unused' }, `127.0.0.1:${port}`);
}

export async function privatePostgres(): Promise<PrivateInfra> {
  const port = await freePort();
  return privateInfra('postgres', port, { PG_PORT: String(port), KAFKA_BROKERS: 'unused' }, `postgres://postgres@127.0.0.1:${port}/seed`);
}

function privateInfra(kind: string, port: number, ports: Record<string, string>, address: string): PrivateInfra {
  const dir = mkdtempSync(join(tmpdir(), `seed-${kind}-`));
  const env: NodeJS.ProcessEnv = { ...process.env, ...ports, SEED_LOCAL_DIR: dir };
  // Only the variable naming the other component may be set: infra.sh skips what it is given.
  delete env[kind === 'kafka' ? 'KAFKA_BROKERS' : 'DATABASE_URL'];
  let starting: ChildProcess | undefined;
  let started: Promise<void> | undefined;
  const infra = (command: string) => run('bash', [INFRA, command], { env, maxBuffer: 16 * 1024 * 1024 }).then(() => undefined);
  return {
    address,
    upInBackground() {
      started = new Promise<void>((resolve, reject) => {
        starting = spawn('bash', [INFRA, 'up'], { env, stdio: 'ignore' });
        starting.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`infra.sh up (${kind}) exited with ${code}; logs in ${dir}`))));
      });
      started.catch(() => undefined); // awaited by up(); not an unhandled rejection meanwhile
    },
    async up() {
      if (started) {
        const pending = started;
        started = undefined;
        return pending;
      }
      return infra('up');
    },
    async listening(timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      while (!(await accepts(port))) {
        if (Date.now() > deadline) throw new Error(`${kind} did not listen on ${port} within ${timeoutMs} ms; logs in ${dir}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    down: () => infra('down'),
    settings: () =>
      Object.fromEntries(
        readFileSync(join(dir, 'infra.env'), 'utf8')
          .split('\n')
          .filter((line) => line.includes('='))
          .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
      ),
    async remove() {
      starting?.kill();
      await infra('down').catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
