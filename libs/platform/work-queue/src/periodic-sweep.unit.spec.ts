import { register } from 'prom-client';
import { PeriodicSweep } from './periodic-sweep';

const sweptRows = async (sweep: string): Promise<number> =>
  (await register.getSingleMetric('work_queue_swept_rows_total')?.get())?.values.find((v) => v.labels['sweep'] === sweep)?.value ?? 0;
const failures = async (sweep: string): Promise<number> =>
  (await register.getSingleMetric('work_queue_sweep_failures_total')?.get())?.values.find((v) => v.labels['sweep'] === sweep)?.value ?? 0;

const quietLogger = () => ({ warnings: [] as string[], warn(_: object, message: string) { this.warnings.push(message); } });

describe('PeriodicSweep', () => {
  it('runs one pass at a time: a pass asked for while one is under way is that pass', async () => {
    let passes = 0;
    let finish: (rows: number) => void = () => undefined;
    const sweep = new PeriodicSweep({ queue: 'q', sweep: 'overlap', everyMs: 60_000, logger: quietLogger(), pass: () => { passes++; return new Promise<number>((r) => (finish = r)); } });
    const first = sweep.runNow();
    const second = sweep.runNow();
    finish(3);
    expect(await first).toBe(3);
    expect(await second).toBe(3);
    expect(passes).toBe(1);
    expect(await sweptRows('overlap')).toBe(3);
  });

  it('counts and logs a failed pass, answers 0, and passes again at the next period', async () => {
    const logger = quietLogger();
    let fail = true;
    const sweep = new PeriodicSweep({ queue: 'q', sweep: 'failing', everyMs: 0, logger, pass: async () => { if (fail) throw new Error('database away'); return 2; } });
    expect(await sweep.runNow()).toBe(0);
    expect(await failures('failing')).toBe(1);
    expect(logger.warnings).toHaveLength(1);
    fail = false;
    expect(await sweep.runIfDue()).toBe(2);
  });

  it('runIfDue passes only once a period has gone by since the last pass', async () => {
    let passes = 0;
    const sweep = new PeriodicSweep({ queue: 'q', sweep: 'period', everyMs: 1000, logger: quietLogger(), pass: async () => ++passes });
    const start = Date.now();
    expect(await sweep.runIfDue(start)).toBe(0);
    expect(await sweep.runIfDue(start + 1000)).toBe(1);
    expect(await sweep.runIfDue(Date.now() + 999)).toBe(0);
    expect(passes).toBe(1);
  });

  it('stop waits for the pass under way', async () => {
    let ended = false;
    const sweep = new PeriodicSweep({ queue: 'q', sweep: 'stopping', everyMs: 60_000, logger: quietLogger(), pass: async () => { await new Promise((r) => setTimeout(r, 50)); ended = true; return 0; } });
    sweep.start();
    void sweep.runNow();
    await sweep.stop();
    expect(ended).toBe(true);
  });
});
