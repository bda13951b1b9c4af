import pino from 'pino';
import { StartDeadline, StartTimeoutError } from './start-deadline';

const silent = pino({ level: 'silent' });

describe('StartDeadline', () => {
  it('retries a step that fails until it succeeds, cleaning up after each failure', async () => {
    const deadline = new StartDeadline(10_000, silent);
    let calls = 0;
    let cleanUps = 0;
    const result = await deadline.retry(
      'kafka: topics',
      async () => {
        calls += 1;
        if (calls < 3) throw new Error('The coordinator is loading and hence can\'t process requests for this group');
        return 'ready';
      },
      async () => {
        cleanUps += 1;
      },
    );
    expect(result).toBe('ready');
    expect(calls).toBe(3);
    expect(cleanUps).toBe(2);
  });

  it('gives up at the deadline with one error naming the step and the last reason', async () => {
    const deadline = new StartDeadline(600, silent);
    const started = Date.now();
    const failure = deadline.retry('postgres: migrations', () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:5432')));
    await expect(failure).rejects.toThrow(StartTimeoutError);
    await expect(failure).rejects.toThrow('gave up after START_TIMEOUT_MS=600 waiting for postgres: migrations: connect ECONNREFUSED 127.0.0.1:5432');
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it('does not wait past the deadline for an attempt that hangs', async () => {
    const deadline = new StartDeadline(300, silent);
    const started = Date.now();
    await expect(deadline.retry('kafka: producer', () => new Promise<never>(() => undefined))).rejects.toThrow(
      'gave up after START_TIMEOUT_MS=300 waiting for kafka: producer: no answer',
    );
    expect(Date.now() - started).toBeLessThan(1000);
  });
});
