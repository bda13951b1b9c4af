import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { planStack, removeStackData, stackHandle, type RunningStack } from '@seed/platform-testing';
import type { SmsBatchDb } from './database';
import { useStarted } from './stack';

const ROOT = join(__dirname, '../../../..');

export type AgentStackService = 'smsc-simulator' | 'sms-batch' | 'agent-token' | 'api-gateway';

const MAINS: Record<AgentStackService, string> = {
  'smsc-simulator': 'dist/tools/smsc-simulator/src/main.js',
  'sms-batch': 'dist/apps/sms-batch/src/main.js',
  'agent-token': 'dist/apps/agent-token/src/main.js',
  'api-gateway': 'dist/apps/api-gateway/src/main.js',
};

export interface AgentProcessStack extends RunningStack {
  /** Starts the service (again, after a kill) and waits until it answers its readiness check. */
  start(service: AgentStackService): Promise<void>;
  /** Sends `signal` to the service and resolves with how it ended (exit code or signal name). */
  kill(service: AgentStackService, signal: NodeJS.Signals): Promise<string>;
}

/**
 * The services the agent API and its guest-link SMS need (simulator, sms-batch, agent-token,
 * gateway) as separate processes from dist/, so that agent-token or sms-batch can be killed and
 * started again while the others keep running (tools/scripts/stack.mjs would stop them all).
 */
export async function startAgentProcesses(extraEnv: Record<string, string> = {}): Promise<AgentProcessStack> {
  const plan = await planStack(extraEnv);
  const { name, env, logDir } = plan;
  const { admin, smsc: smscPort, smscHttp, healthBase: health } = plan.ports;
  env['SMSC_HOST'] = '127.0.0.1';
  env['SMPP_URL'] ??= `smpp://seed:secret@127.0.0.1:${smscPort}`;
  // The health ports tools/scripts/stack.mjs gives them.
  const healthPort: Partial<Record<AgentStackService, number>> = { 'sms-batch': health, 'agent-token': health + 20 };
  const readyUrl: Record<AgentStackService, string> = {
    'smsc-simulator': `http://127.0.0.1:${smscHttp}/health`,
    'sms-batch': `http://127.0.0.1:${health}/health/ready`,
    'agent-token': `http://127.0.0.1:${health + 20}/health/ready`,
    'api-gateway': `http://127.0.0.1:${admin}/health/ready`,
  };
  const children = new Map<AgentStackService, ChildProcess>();

  const start = async (service: AgentStackService): Promise<void> => {
    if (children.has(service)) throw new Error(`${service} is already running`);
    const port = healthPort[service];
    const child = spawn(process.execPath, ['--enable-source-maps', join(ROOT, MAINS[service])], {
      env: { PATH: process.env['PATH'] ?? '', ...env, ...(port ? { HEALTH_PORT: String(port) } : {}) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const log = createWriteStream(join(logDir, `${name}.${service}.log`), { flags: 'a' });
    child.stdout?.pipe(log, { end: false });
    child.stderr?.pipe(log, { end: false });
    children.set(service, child);
    child.once('exit', () => {
      if (children.get(service) === child) children.delete(service);
    });
    await waitReady(service, child, readyUrl[service], `.local/e2e-logs/${name}.${service}.log`);
  };

  const kill = (service: AgentStackService, signal: NodeJS.Signals): Promise<string> => {
    const child = children.get(service);
    if (!child) throw new Error(`${service} is not running`);
    const exited = new Promise<string>((resolve) => child.once('exit', (code, sig) => resolve(sig ?? `exit ${code}`)));
    child.kill(signal);
    return exited;
  };

  const stopAll = async (): Promise<void> => {
    const timer = setTimeout(() => [...children.values()].forEach((c) => c.kill('SIGKILL')), 15_000);
    const services = (['agent-token', 'sms-batch', 'api-gateway'] as const).filter((s) => children.has(s));
    await Promise.all(services.map((s) => kill(s, 'SIGTERM')));
    if (children.has('smsc-simulator')) await kill('smsc-simulator', 'SIGTERM');
    clearTimeout(timer);
    await removeStackData(name);
  };

  try {
    await start('smsc-simulator');
    await Promise.all([start('sms-batch'), start('agent-token'), start('api-gateway')]);
  } catch (error) {
    await stopAll();
    throw error;
  }
  return { ...stackHandle(plan, stopAll), start, kill };
}

/** `startAgentProcesses` for the calling test file: started in beforeAll, stopped in afterAll. */
export function useAgentProcesses(extraEnv: Record<string, string> = {}): { readonly stack: AgentProcessStack; readonly db: SmsBatchDb } {
  return useStarted(() => startAgentProcesses(extraEnv));
}

async function waitReady(service: AgentStackService, child: ChildProcess, url: string, log: string): Promise<void> {
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
