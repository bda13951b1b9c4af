import { WakeablePause } from './wakeable-pause';

describe('WakeablePause', () => {
  it('waits the time out when nobody wakes it', async () => {
    const started = Date.now();
    await expect(new WakeablePause().wait(30)).resolves.toBe(false);
    expect(Date.now() - started).toBeGreaterThanOrEqual(25);
  });

  it('returns at once when woken during the wait', async () => {
    const pause = new WakeablePause();
    const started = Date.now();
    const waiting = pause.wait(5000);
    pause.wake();
    await expect(waiting).resolves.toBe(true);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('remembers a wake that came while the loop was busy, once', async () => {
    const pause = new WakeablePause();
    pause.wake();
    pause.wake();
    await expect(pause.wait(5000)).resolves.toBe(true);
    await expect(pause.wait(20)).resolves.toBe(false);
  });
});
