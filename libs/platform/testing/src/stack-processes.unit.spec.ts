import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { infrastructureProcesses, stackProcess, stackProcesses } from './stack-processes';

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

  it('finds a process by name and refuses an unknown one', () => {
    expect(stackProcess('sms-batch').main).toBe('dist/apps/sms-batch/src/main.js');
    expect(() => stackProcess('nope')).toThrow('no process nope');
    expect(infrastructureProcesses().map((p) => p.name)).toEqual(['kafka', 'postgres']);
  });
});
