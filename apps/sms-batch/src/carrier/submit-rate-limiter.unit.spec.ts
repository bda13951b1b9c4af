import { SubmitRateLimiter } from './submit-rate-limiter';

const settled = async (promise: Promise<boolean>, ms: number): Promise<boolean | 'pending'> =>
  Promise.race([promise, new Promise<'pending'>((resolve) => setTimeout(() => resolve('pending'), ms))]);

describe('SubmitRateLimiter', () => {
  it('lets everything through without a cap', async () => {
    const limiter = new SubmitRateLimiter();
    expect(await Promise.all([limiter.take(), limiter.take(), limiter.take()])).toEqual([true, true, true]);
  });

  it('holds a share of 0 until the rate rises', async () => {
    const limiter = new SubmitRateLimiter();
    limiter.setRate(0);
    const waiting = limiter.take();
    expect(await settled(waiting, 250)).toBe('pending');
    limiter.setRate(Infinity);
    expect(await settled(waiting, 50)).toBe(true);
  });

  it('answers false to a waiter whose caller gave up, even at a share of 0', async () => {
    const limiter = new SubmitRateLimiter();
    limiter.setRate(0);
    let wanted = true;
    const waiting = limiter.take(() => wanted);
    expect(await settled(waiting, 150)).toBe('pending');
    wanted = false; // the sender is stopping
    expect(await settled(waiting, 300)).toBe(false);
    expect(limiter.waiting()).toBe(0);
  });

  it('keeps the others in line when one gives up', async () => {
    const limiter = new SubmitRateLimiter();
    limiter.setRate(10); // one token at first, then one every 100 ms
    const first = limiter.take();
    let wanted = true;
    const abandoned = limiter.take(() => wanted);
    const third = limiter.take();
    expect(await first).toBe(true);
    wanted = false;
    expect(await settled(abandoned, 300)).toBe(false);
    expect(await settled(third, 300)).toBe(true);
  });
});
