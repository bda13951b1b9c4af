import { EventEmitter } from 'node:events';
import type { Consumer, ConsumerRunConfig } from 'kafkajs';
import { testLogger } from '@seed/platform-testing';
import { CrashRestarter } from './crash-restarter';

const EVENTS = { CRASH: 'consumer.crash', GROUP_JOIN: 'consumer.group_join' } as const;

/** The part of a kafkajs consumer the restarter uses: its events and `run`. */
function fakeConsumer() {
  const emitter = new EventEmitter();
  const run = jest.fn(async (_config?: ConsumerRunConfig) => undefined);
  const consumer = { events: EVENTS, on: (event: string, listener: (e: unknown) => void) => emitter.on(event, listener), run } as unknown as Consumer;
  const crash = (restart: boolean) => emitter.emit(EVENTS.CRASH, { payload: { error: new Error('Failed to find group coordinator'), restart } });
  const join = () => emitter.emit(EVENTS.GROUP_JOIN, { payload: {} });
  return { consumer, run, crash, join };
}

const RUN: ConsumerRunConfig = { autoCommit: false };

beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

describe('CrashRestarter', () => {
  it('runs the consumer again, with its run settings, after a crash kafkajs does not restart from', async () => {
    const { consumer, run, crash } = fakeConsumer();
    new CrashRestarter(consumer, RUN, testLogger(), 'group');
    crash(false);
    await jest.advanceTimersByTimeAsync(999);
    expect(run).not.toHaveBeenCalled();
    await jest.advanceTimersByTimeAsync(1);
    expect(run).toHaveBeenCalledWith(RUN);
  });

  it('leaves a crash kafkajs restarts itself to kafkajs', async () => {
    const { consumer, run, crash } = fakeConsumer();
    new CrashRestarter(consumer, RUN, testLogger(), 'group');
    crash(true);
    await jest.advanceTimersByTimeAsync(60_000);
    expect(run).not.toHaveBeenCalled();
  });

  it('doubles its delay per crash without a join between, up to 10 s, and starts again from 1 s after a join', async () => {
    const { consumer, run, crash, join } = fakeConsumer();
    new CrashRestarter(consumer, RUN, testLogger(), 'group');
    const delays: number[] = [];
    for (let i = 0; i < 6; i++) {
      const runs = run.mock.calls.length;
      crash(false);
      let waited = 0;
      while (run.mock.calls.length === runs) {
        await jest.advanceTimersByTimeAsync(500);
        waited += 500;
      }
      delays.push(waited);
    }
    expect(delays).toEqual([1000, 2000, 4000, 8000, 10_000, 10_000]);

    join();
    crash(false);
    await jest.advanceTimersByTimeAsync(1000);
    expect(run).toHaveBeenCalledTimes(7);
  });

  it('does not run a consumer that is being stopped', async () => {
    const { consumer, run, crash } = fakeConsumer();
    const restarter = new CrashRestarter(consumer, RUN, testLogger(), 'group');
    crash(false);
    restarter.stop();
    crash(false);
    await jest.advanceTimersByTimeAsync(60_000);
    expect(run).not.toHaveBeenCalled();
  });
});
