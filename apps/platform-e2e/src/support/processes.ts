import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import {
  gatewayPortsOf,
  healthPortOf,
  planStack,
  removeStackData,
  serviceNodeFlags,
  stackHandle,
  stackProcess,
  stackProcessOfRole,
  type RunningStack,
  type StackProcessName,
  type StackProcessNameOf,
} from '@seed/platform-testing';
import type { SmsBatchDb } from './database';
import { useStarted } from './stack';

const ROOT = join(__dirname, '../../../..');
/** The flags `npm start` and the image run the services with (see the file). */
const SERVICE_NODE_FLAGS = serviceNodeFlags();

/** The processes of tools/stack/processes.json, whose mains, health ports and checks this harness takes. */
export type ServiceName = StackProcessName;
/** The back-end service every stack here runs: the other back-end services are a test's choice. */
const CORE_SERVICE = 'sms-batch' satisfies StackProcessNameOf<'service'>;
/** The back-end services a test may add to the simulator, sms-batch and the gateway. */
export type ExtraService = Exclude<StackProcessNameOf<'service'>, typeof CORE_SERVICE>;
const SIMULATOR = stackProcessOfRole('simulator').name;
const GATEWAY = stackProcessOfRole('gateway').name;

/** A service's process: its first replica by the service's name, replica i (from 2) as `name#i`. */
export type Instance = ServiceName | `${ServiceName}#${number}`;

export interface ProcessStack extends RunningStack {
  /** Starts the instance (again, after a kill) and waits until it answers its readiness check. */
  start(instance: Instance): Promise<void>;
  /** Sends `signal` to the instance and resolves with how it ended (exit code or signal name). */
  kill(instance: Instance, signal: NodeJS.Signals): Promise<string>;
  /** The listeners of gateway replica `i` (from 1), where tools/scripts/stack.mjs would place them in this port block. */
  gateway(i: number): Pick<RunningStack, 'messagingUrl' | 'agentUrl' | 'adminUrl'>;
}

/**
 * GATEWAY_PORT_STEP unless the test sets it. Not the launcher's default (10): in a port block of
 * freePortBlock the health ports start at base+10, so a second gateway fits only at base+5..7. A
 * test that starts the stack whole with replicas passes the same to the launcher.
 */
const BLOCK_GATEWAY_PORT_STEP = 5;

const parse = (instance: Instance): { service: ServiceName; replica: number } => {
  const [service, replica] = instance.split('#') as [ServiceName, string | undefined];
  return { service, replica: replica === undefined ? 1 : Number(replica) };
};

/**
 * The SMSC simulator, sms-batch, the api-gateway and the `extra` services a test needs as separate
 * processes from dist/, with the environment `startStack` gives them (free ports, a topic and
 * schema prefix of their own), but without tools/scripts/stack.mjs, which stops every service when
 * one exits: here one service can be stopped or killed and started again while the others keep running.
 */
export async function startProcesses(
  extraEnv: Record<string, string> = {},
  extra: readonly ExtraService[] = [],
  { replicas = 1 }: { replicas?: number } = {},
): Promise<ProcessStack> {
  const plan = await planStack(extraEnv);
  const { name, env, logDir } = plan;
  const { messaging, agent, admin, smsc: smscPort, smscHttp, healthBase: health } = plan.ports;
  env['SMSC_HOST'] = '127.0.0.1';
  env['SMPP_URL'] ??= `smpp://seed:secret@127.0.0.1:${smscPort}`;
  // As tools/scripts/stack.mjs does: the default carrier's binds, one per sms-batch replica.
  env['SMPP_BINDS'] ??= String(replicas);
  const gatewayStep = Number(env['GATEWAY_PORT_STEP'] ?? BLOCK_GATEWAY_PORT_STEP);
  const healthPort = (instance: Instance): number | undefined => {
    const { service, replica } = parse(instance);
    return healthPortOf(service, health, replica);
  };
  const gatewayPorts = (replica: number) => gatewayPortsOf({ messaging, agent, admin }, replica, gatewayStep);
  const gateway = (replica: number) => {
    const ports = gatewayPorts(replica);
    return { messagingUrl: `http://127.0.0.1:${ports.messaging}`, agentUrl: `http://127.0.0.1:${ports.agent}`, adminUrl: `http://127.0.0.1:${ports.admin}` };
  };
  const instanceEnv = (instance: Instance): Record<string, string> => {
    const { service, replica } = parse(instance);
    if (stackProcess(service).role !== 'gateway') {
      const port = healthPort(instance);
      return port === undefined ? {} : { HEALTH_PORT: String(port) };
    }
    const ports = gatewayPorts(replica);
    return { MESSAGING_API_PORT: String(ports.messaging), AGENT_API_PORT: String(ports.agent), ADMIN_API_PORT: String(ports.admin) };
  };
  const readyUrl = (instance: Instance): string => {
    const { service, replica } = parse(instance);
    const { role, health: path } = stackProcess(service);
    if (role === 'simulator') return `http://127.0.0.1:${smscHttp}${path}`;
    if (role === 'gateway') return `${gateway(replica).adminUrl}${path}`;
    return `http://127.0.0.1:${healthPort(instance)}${path}`;
  };
  const children = new Map<Instance, ChildProcess>();

  const start = async (instance: Instance): Promise<void> => {
    if (children.has(instance)) throw new Error(`${instance} is already running`);
    const logName = instance.replace('#', '-');
    const child = spawn(process.execPath, [...SERVICE_NODE_FLAGS, join(ROOT, stackProcess(parse(instance).service).main)], {
      env: { PATH: process.env['PATH'] ?? '', ...env, ...instanceEnv(instance) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const log = createWriteStream(join(logDir, `${name}.${logName}.log`), { flags: 'a' });
    child.stdout?.pipe(log, { end: false });
    child.stderr?.pipe(log, { end: false });
    children.set(instance, child);
    child.once('exit', () => {
      if (children.get(instance) === child) children.delete(instance);
    });
    await waitReady(instance, child, readyUrl(instance), `.local/e2e-logs/${name}.${logName}.log`);
  };

  const kill = (instance: Instance, signal: NodeJS.Signals): Promise<string> => {
    const child = children.get(instance);
    if (!child) throw new Error(`${instance} is not running`);
    const exited = new Promise<string>((resolve) => child.once('exit', (code, sig) => resolve(sig ?? `exit ${code}`)));
    child.kill(signal);
    return exited;
  };

  const stopAll = async (): Promise<void> => {
    const timer = setTimeout(() => [...children.values()].forEach((c) => c.kill('SIGKILL')), 15_000);
    // Services first (they finish their work), the simulator last (it still answers them).
    const services = [...children.keys()].filter((s) => s !== SIMULATOR);
    await Promise.all(services.map((s) => kill(s, 'SIGTERM')));
    if (children.has(SIMULATOR)) await kill(SIMULATOR, 'SIGTERM');
    clearTimeout(timer);
    await removeStackData(name);
  };

  const all = (service: ServiceName): Instance[] => Array.from({ length: replicas }, (_, i) => (i === 0 ? service : (`${service}#${i + 1}` as Instance)));
  try {
    await start(SIMULATOR);
    await Promise.all([...all(CORE_SERVICE), ...extra.flatMap(all), ...all(GATEWAY)].map(start));
  } catch (error) {
    await stopAll();
    throw error;
  }

  return { ...stackHandle(plan, stopAll), start, kill, gateway };
}

/**
 * `startProcesses` for the calling test file: started in beforeAll, stopped in afterAll. The
 * environment may be computed at start (a test receiver's port, say).
 */
export function useProcesses(
  extraEnv: Record<string, string> | (() => Promise<Record<string, string>>) = {},
  extra: readonly ExtraService[] = [],
  options: { replicas?: number } = {},
): { readonly stack: ProcessStack; readonly db: SmsBatchDb } {
  return useStarted(async () => startProcesses(typeof extraEnv === 'function' ? await extraEnv() : extraEnv, extra, options));
}

async function waitReady(service: Instance, child: ChildProcess, url: string, log: string): Promise<void> {
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
