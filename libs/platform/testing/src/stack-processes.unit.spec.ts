import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  gatewayPortsOf,
  healthPortOf,
  infrastructureProcesses,
  measuredProcesses,
  platformServices,
  STACK_PROCESS_ROLES,
  stackProcess,
  stackProcesses,
  stackProcessOfRole,
} from './stack-processes';

const ROOT = join(__dirname, '../../../..');
/** The source a `dist/...js` path is compiled from. */
const sourceOf = (dist: string): string => join(ROOT, dist.replace(/^dist\//, '').replace(/\.js$/, '.ts'));

describe('tools/stack/processes.json', () => {
  const processes = stackProcesses();

  it('names each process once, the simulator first (the services need their carrier at start)', () => {
    expect(new Set(processes.map((p) => p.name)).size).toBe(processes.length);
    expect(processes[0]?.role).toBe('simulator');
  });

  it('points at entry points and ServiceDefinitions that exist', () => {
    for (const p of processes) {
      expect(existsSync(sourceOf(p.main))).toBe(true);
      if (p.definition) expect(existsSync(sourceOf(p.definition))).toBe(true);
    }
  });

  it('gives each back-end service a health port of its own, and only them', () => {
    const services = processes.filter((p) => p.role === 'service');
    expect(services.every((p) => p.healthPortOffset !== undefined)).toBe(true);
    expect(processes.filter((p) => p.role !== 'service').every((p) => p.healthPortOffset === undefined)).toBe(true);
    const offsets = services.map((p) => p.healthPortOffset as number);
    // A second replica takes the port after its service's: offsets at least 2 apart.
    expect([...offsets].sort((a, b) => a - b).every((offset, i, sorted) => i === 0 || offset - (sorted[i - 1] as number) >= 2)).toBe(true);
  });

  it('gives every service and the gateway a Kafka user and a ServiceDefinition', () => {
    for (const p of processes.filter((p) => p.role !== 'simulator')) {
      expect(p.kafkaUser).toBe(`seed-${p.name}`);
      expect(p.definition).toBeDefined();
    }
  });

  it('is what STACK_PROCESS_ROLES tells the type checker: the same names and roles, in the same order', () => {
    expect(Object.entries(STACK_PROCESS_ROLES)).toEqual(processes.map((p) => [p.name, p.role]));
    expect(stackProcessOfRole('simulator').name).toBe('smsc-simulator');
    expect(stackProcessOfRole('gateway').name).toBe('api-gateway');
  });

  it("gives every service and the gateway its ServiceDefinition's schema", async () => {
    for (const p of platformServices()) {
      // The sources of the file the manifest names (a unit test runs without a build of dist/).
      const exported = Object.values((await import(sourceOf(p.definition))) as Record<string, unknown>);
      const definition = exported.find((v): v is { schema: string } => typeof (v as { schema?: unknown } | null)?.schema === 'string' && Array.isArray((v as { migrations?: unknown }).migrations));
      expect([p.name, definition?.schema]).toEqual([p.name, p.schema]);
    }
  });

  it('lists the platform services the gateway first, as k8s/ lists their roles and users', () => {
    expect(platformServices().map((p) => p.name)).toEqual(['api-gateway', 'sms-batch', 'verification', 'agent-token', 'webhook-dispatcher']);
  });

  it('gives the benchmarks the processes they name, in their order, and refuses an unknown one', () => {
    expect(measuredProcesses('postgres', 'sms-batch')).toEqual([
      { name: 'postgres', role: 'infrastructure', commandLine: 'postgres' },
      { name: 'sms-batch', role: 'service', commandLine: 'dist/apps/sms-batch/src/main.js' },
    ]);
    expect(() => measuredProcesses('sms-batch', 'nope')).toThrow('no process nope');
  });

  it("places replicas' ports as tools/scripts/stack.mjs does", () => {
    expect(healthPortOf('verification', 3110, 2)).toBe(3121);
    expect(healthPortOf('api-gateway', 3110)).toBeUndefined();
    expect(gatewayPortsOf({ messaging: 3000, agent: 3001, admin: 3002 }, 2, 10)).toEqual({ messaging: 3010, agent: 3011, admin: 3012 });
  });

  it('finds a process by name and refuses an unknown one', () => {
    expect(stackProcess('sms-batch').main).toBe('dist/apps/sms-batch/src/main.js');
    expect(() => stackProcess('nope')).toThrow('no process nope');
    expect(infrastructureProcesses().map((p) => p.name)).toEqual(['kafka', 'postgres']);
  });
});
