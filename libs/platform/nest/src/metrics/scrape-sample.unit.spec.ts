import { register } from 'prom-client';
import { SampledGauge } from './sampled-gauge';
import { ScrapeSample } from './scrape-sample';

describe('ScrapeSample', () => {
  it('takes a reading at most once per maxAgeMs, and shares one in progress', async () => {
    let now = 0;
    let taken = 0;
    const sample = new ScrapeSample(async () => ++taken, { maxAgeMs: 5000, now: () => now });
    expect(await Promise.all([sample.current(), sample.current()])).toEqual([1, 1]);
    now = 4999;
    expect(await sample.current()).toBe(1);
    now = 5000;
    expect(await sample.current()).toBe(2);
    expect(taken).toBe(2);
  });

  it('gives no reading when taking it failed or took too long, and starts no second one meanwhile', async () => {
    const errors: unknown[] = [];
    const failing = new ScrapeSample(() => Promise.reject(new Error('database away')), { onError: (e) => errors.push(e) });
    expect(await failing.current()).toBeUndefined();
    expect(errors).toHaveLength(1);

    let release: (value: number) => void = () => undefined;
    let started = 0;
    const slow = new ScrapeSample(
      () => {
        started++;
        return new Promise<number>((resolve) => (release = resolve));
      },
      { timeoutMs: 20, maxAgeMs: 0 },
    );
    expect(await slow.current()).toBeUndefined();
    expect(await slow.current()).toBeUndefined();
    expect(started).toBe(1);
    release(7);
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toBe(1);
  });
});

describe('SampledGauge', () => {
  it('shows what the attached source reads, and nothing once it is detached', async () => {
    const gauge = new SampledGauge({ name: 'test_sampled_gauge', help: 'a test', labelNames: ['queue'] as const });
    const detach = gauge.attach(async () => [{ labels: { queue: 'a' }, value: 3 }]);
    expect(await register.getSingleMetricAsString('test_sampled_gauge')).toContain('test_sampled_gauge{queue="a"} 3');
    detach();
    expect(await register.getSingleMetricAsString('test_sampled_gauge')).not.toContain('queue="a"');
    register.removeSingleMetric('test_sampled_gauge');
  });
});
