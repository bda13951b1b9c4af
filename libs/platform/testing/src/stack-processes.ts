import { readFileSync } from 'node:fs';
import { join } from 'node:path';

// The repository root, whether this runs from the sources (tests) or from dist/ (benchmarks).
const ROOT = join(__dirname, __dirname.includes('/dist/libs/') ? '../../../../..' : '../../../..');

/** One process of tools/stack/processes.json, the list `npm start`, the e2e harness and the benchmarks share. */
export interface StackProcess {
  name: string;
  /** `simulator` stands in for the carrier; `gateway` serves the HTTP APIs; `service` is a back-end service. */
  role: 'simulator' | 'service' | 'gateway';
  /** Entry point under the repository root. */
  main: string;
  /** Readiness path: on the health port (services), the admin listener (gateway) or the inspection API (simulator). */
  health: string;
  /** Back-end services: health/metrics port = HEALTH_PORT_BASE + this. */
  healthPortOffset?: number;
  /** The SCRAM user the process authenticates to Kafka as, when credentials are given. */
  kafkaUser?: string;
  /** The compiled file exporting the service's ServiceDefinition (its topics and schema). */
  definition?: string;
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

/** The infrastructure the stack runs on (Kafka, PostgreSQL), by command-line pattern. */
export const infrastructureProcesses = (): readonly InfrastructureProcess[] => read().infrastructure;

/** The flags `npm start`, the image and the e2e harness run every process with. */
export const serviceNodeFlags = (): string[] => JSON.parse(readFileSync(join(ROOT, 'tools/scripts/service-node-flags.json'), 'utf8')) as string[];
