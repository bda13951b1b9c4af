import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { planStack, removeStackData, stackHandle, type RunningStack } from '@seed/platform-testing';
import type { SmsBatchDb } from './database';
import { useStarted } from './stack';

const ROOT = join(__dirname, '../../../..');
/** The flags `npm start` and the image run the services with (see the file). */
const SERVICE_NODE_FLAGS = JSON.parse(readFileSync(join(ROOT, 'tools/scripts/service-node-flags.json'), 'utf8')) as string[];

export type ServiceName = 'smsc-simulator' | 'sms-batch' | 'verification' | 'agent-token' | 'webhook-dispatcher' | 'api-gateway';
/** The back-end services a test may add to the simulator, sms-batch and the gateway. */
export type ExtraService = 'verification' | 'agent-token' | 'webhook-dispatcher';

const MAINS: Record<ServiceName, string> = {
  'smsc-simulator': 'dist/tools/smsc-simulator/src/main.js',
  'sms-batch': 'dist/apps/sms-batch/src/main.js',
  verification: 'dist/apps/verification/src/main.js',
  'agent-token': 'dist/apps/agent-token/src/main.js',
  'webhook-dispatcher': 'dist/apps/webhook-dispatcher/src/main.js',
  'api-gateway': 'dist/apps/api-gateway/src/main.js',
};

/** Health ports as tools/scripts/stack.mjs gives them: the plan's base, then steps of 10. */
const HEALTH_OFFSET: Partial<Record<ServiceName, number>> = { 'sms-batch': 0, verification: 10, 'agent-token': 20, 'webhook-dispatcher': 30 };

export interface ProcessStack extends RunningStack {
  /** Starts the service (again, after a kill) and waits until it answers its readiness check. */
  start(service: ServiceName): Promise<void>;
  /** Sends `signal` to the service and resolves with how it ended (exit code or signal name). */
  kill(service: ServiceName, signal: NodeJS.Signals): Promise<string>;
}

/**
 * The SMSC simulator, sms-batch, the api-gateway and the `extra` services a test needs as separate
 * processes from dist/, with the environment `startStack` gives them (free ports, a topic and
 * schema prefix of their own), but without tools/scripts/stack.mjs, which stops every service when
 * one exits: here one service can be stopped or killed and started again while the others keep running.
 */
export async function startProcesses(extraEnv: Record<string, string> = {}, extra: readonly ExtraService[] = []): Promise<ProcessStack> {
  const plan = await planStack(extraEnv);
  const { name, env, logDir } = plan;
  const { admin, smsc: smscPort, smscHttp, healthBase: health } = plan.ports;
  env['SMSC_HOST'] = '127.0.0.1';
  env['SMPP_URL'] ??= `smpp://seed:secret@127.0.0.1:${smscPort}`;
  const healthPort = (service: ServiceName): number | undefined => {
    const offset = HEALTH_OFFSET[service];
    return offset === undefined ? undefined : health + offset;
  };
  const readyUrl = (service: ServiceName): string =>
    service === 'smsc-simulator'
      ? `http://127.0.0.1:${smscHttp}/health`
      : service === 'api-gateway'
        ? `http://127.0.0.1:${admin}/health/ready`
        : `http://127.0.0.1:${healthPort(service)}/health/ready`;
  const children = new Map<ServiceName, ChildProcess>();

  const start = async (service: ServiceName): Promise<void> => {
    if (children.has(service)) throw new Error(`${service} is already running`);
    const port = healthPort(service);
    const child = spawn(process.execPath, [...SERVICE_NODE_FLAGS, join(ROOT, MAINS[service])], {
      env: { PATH: process.env['PATH'] ?? '', ...env, ...(port === undefined ? {} : { HEALTH_PORT: String(port) }) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const log = createWriteStream(join(logDir, `${name}.${service}.log`), { flags: 'a' });
    child.stdout?.pipe(log, { end: false });
    child.stderr?.pipe(log, { end: false });
    children.set(service, child);
    child.once('exit', () => {
      if (children.get(service) === child) children.delete(service);
    });
    await waitReady(service, child, readyUrl(service), `.local/e2e-logs/${name}.${service}.log`);
  };

  const kill = (service: ServiceName, signal: NodeJS.Signals): Promise<string> => {
    const child = children.get(service);
    if (!child) throw new Error(`${service} is not running`);
    const exited = new Promise<string>((resolve) => child.once('exit', (code, sig) => resolve(sig ?? `exit ${code}`)));
    child.kill(signal);
    return exited;
  };

  const stopAll = async (): Promise<void> => {
    const timer = setTimeout(() => [...children.values()].forEach((c) => c.kill('SIGKILL')), 15_000);
    // Services first (they finish their work), the simulator last (it still answers them).
    const services = [...children.keys()].filter((s) => s !== 'smsc-simulator');
    await Promise.all(services.map((s) => kill(s, 'SIGTERM')));
    if (children.has('smsc-simulator')) await kill('smsc-simulator', 'SIGTERM');
    clearTimeout(timer);
    await removeStackData(name);
  };

  try {
    await start('smsc-simulator');
    await Promise.all([start('sms-batch'), ...extra.map(start), start('api-gateway')]);
  } catch (error) {
    await stopAll();
    throw error;
  }

  return { ...stackHandle(plan, stopAll), start, kill };
}

/**
 * `startProcesses` for the calling test file: started in beforeAll, stopped in afterAll. The
 * environment may be computed at start (a test receiver's port, say).
 */
export function useProcesses(
  extraEnv: Record<string, string> | (() => Promise<Record<string, string>>) = {},
  extra: readonly ExtraService[] = [],
): { readonly stack: ProcessStack; readonly db: SmsBatchDb } {
  return useStarted(async () => startProcesses(typeof extraEnv === 'function' ? await extraEnv() : extraEnv, extra));
}

async function waitReady(service: ServiceName, child: ChildProcess, url: string, log: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${service} exited during start-up; see ${log}`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${service} was not ready within 60 s; see ${log}`);
}
