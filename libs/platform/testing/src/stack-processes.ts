import { readFileSync } from 'node:fs';
import { join } from 'node:path';

// The repository root, whether this runs from the sources (tests) or from dist/ (benchmarks).
const ROOT = join(__dirname, __dirname.includes('/dist/libs/') ? '../../../../..' : '../../../..');

export type StackRole = 'simulator' | 'service' | 'gateway';

/**
 * The manifest's names and roles, for the type checker (it cannot read JSON literally):
 * stack-processes.unit.spec.ts holds this equal to tools/stack/processes.json, order included.
 */
export const STACK_PROCESS_ROLES = {
  'smsc-simulator': 'simulator',
  'sms-batch': 'service',
  verification: 'service',
  'agent-token': 'service',
  'webhook-dispatcher': 'service',
  'api-gateway': 'gateway',
} as const satisfies Record<string, StackRole>;

export type StackProcessName = keyof typeof STACK_PROCESS_ROLES;
/** The names of the processes of these roles. */
export type StackProcessNameOf<R extends StackRole> = { [N in StackProcessName]: (typeof STACK_PROCESS_ROLES)[N] extends R ? N : never }[StackProcessName];
/** The gateway and the back-end services: each with a database schema and a Kafka user of its own. */
export type PlatformServiceName = StackProcessNameOf<'service' | 'gateway'>;

/** One process of tools/stack/processes.json, the list `npm start`, the e2e harness and the benchmarks share. */
export interface StackProcess {
  name: StackProcessName;
  /** `simulator` stands in for the carrier; `gateway` serves the HTTP APIs; `service` is a back-end service. */
  role: StackRole;
  /** Entry point under the repository root. */
  main: string;
  /** Readiness path: on the health port (services), the admin listener (gateway) or the inspection API (simulator). */
  health: string;
  /** Back-end services: health/metrics port = HEALTH_PORT_BASE + this. */
  healthPortOffset?: number;
  /** The SCRAM user the process authenticates to Kafka as, when credentials are given. */
  kafkaUser?: string;
  /** The PostgreSQL schema the service owns: its ServiceDefinition's `schema`, before DATABASE_SCHEMA_PREFIX. */
  schema?: string;
  /** The compiled file exporting the service's ServiceDefinition (its topics and schema). */
  definition?: string;
}

/** The gateway or a back-end service, which the manifest gives all of these. */
export interface PlatformService extends StackProcess {
  name: PlatformServiceName;
  kafkaUser: string;
  schema: string;
  definition: string;
}

/** A process of the machine the benchmarks count CPU for, found by its command line. */
export interface InfrastructureProcess {
  name: string;
  commandLine: string;
}

interface Manifest {
  processes: StackProcess[];
  infrastructure: InfrastructureProcess[];
}

let manifest: Manifest | undefined;
const read = (): Manifest => (manifest ??= JSON.parse(readFileSync(join(ROOT, 'tools/stack/processes.json'), 'utf8')) as Manifest);

/** The stack's processes, in start order (the simulator first). */
export const stackProcesses = (): readonly StackProcess[] => read().processes;

/** The one process named `name`; throws for a name the manifest does not have. */
export function stackProcess(name: string): StackProcess {
  const found = read().processes.find((p) => p.name === name);
  if (!found) throw new Error(`tools/stack/processes.json has no process ${name}`);
  return found;
}

type OfRole<R extends 'simulator' | 'gateway'> = (R extends 'gateway' ? PlatformService : StackProcess) & { name: StackProcessNameOf<R> };

/** The one process of a role the manifest has once (the simulator, the gateway). */
export function stackProcessOfRole<R extends 'simulator' | 'gateway'>(role: R): OfRole<R> {
  const found = read().processes.filter((p) => p.role === role);
  if (found.length !== 1) throw new Error(`tools/stack/processes.json has ${found.length} processes of role ${role}, not one`);
  return found[0] as OfRole<R>;
}

/**
 * The gateway, then the back-end services in start order: the order k8s/ lists their database
 * roles and Kafka users in, which tools/deploy generates and its unit tests compare.
 */
export const platformServices = (): readonly PlatformService[] =>
  [...read().processes.filter((p) => p.role === 'gateway'), ...read().processes.filter((p) => p.role === 'service')] as PlatformService[];

/** The infrastructure the stack runs on (Kafka, PostgreSQL), by command-line pattern. */
export const infrastructureProcesses = (): readonly InfrastructureProcess[] => read().infrastructure;

/** A process whose CPU a benchmark counts: found with `pgrep -f commandLine` (a stack process by its entry point). */
export interface MeasuredProcess {
  name: string;
  role: StackRole | 'infrastructure';
  commandLine: string;
}

/**
 * The named processes of the stack or its infrastructure, in the order given (a benchmark reports
 * them in it). Throws for a name the manifest does not have: `pgrep` would count nothing for it.
 */
export function measuredProcesses(...names: string[]): MeasuredProcess[] {
  const all: MeasuredProcess[] = [
    ...read().processes.map((p): MeasuredProcess => ({ name: p.name, role: p.role, commandLine: p.main })),
    ...read().infrastructure.map((p): MeasuredProcess => ({ name: p.name, role: 'infrastructure', commandLine: p.commandLine })),
  ];
  return names.map((name) => {
    const found = all.find((p) => p.name === name);
    if (!found) throw new Error(`tools/stack/processes.json has no process ${name}`);
    return found;
  });
}

/** The ports of a gateway replica's three listeners. */
export interface GatewayPorts {
  messaging: number;
  agent: number;
  admin: number;
}

// The port layout of tools/scripts/stack.mjs (see its header), which cannot import this file.

/** Replica `replica` (from 1) of a back-end service: HEALTH_PORT_BASE + its offset, + 1 a replica; undefined for the others. */
export function healthPortOf(name: string, healthBase: number, replica = 1): number | undefined {
  const offset = stackProcess(name).healthPortOffset;
  return offset === undefined ? undefined : healthBase + offset + replica - 1;
}

/** Gateway replica `replica` (from 1): each of the first replica's ports + (replica - 1) x GATEWAY_PORT_STEP. */
export function gatewayPortsOf(first: GatewayPorts, replica: number, step: number): GatewayPorts {
  const shift = (replica - 1) * step;
  return { messaging: first.messaging + shift, agent: first.agent + shift, admin: first.admin + shift };
}

/** The flags `npm start`, the image and the e2e harness run every process with. */
export const serviceNodeFlags = (): string[] => JSON.parse(readFileSync(join(ROOT, 'tools/scripts/service-node-flags.json'), 'utf8')) as string[];
