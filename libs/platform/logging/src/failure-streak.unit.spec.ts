import type { Logger } from 'pino';
import { FailureStreak } from './failure-streak';

function recordingLogger() {
  const lines: { level: string; message: string }[] = [];
  const at = (level: string) => (_fields: unknown, message: string) => lines.push({ level, message });
  return { logger: { warn: at('warn'), error: at('error'), info: at('info') } as unknown as Logger, lines };
}

describe('FailureStreak', () => {
  it('warns while a loop fails for less than a minute, as through a broker restart, and says nothing when it recovers', () => {
    const { logger, lines } = recordingLogger();
    let now = 0;
    const streak = new FailureStreak(logger, 'batch failed; retrying', 60_000, () => now);
    for (; now < 59_000; now += 1000) streak.failed(new Error('ECONNREFUSED'));
    streak.succeeded();
    expect(new Set(lines.map((l) => l.level))).toEqual(new Set(['warn']));
    expect(lines).toHaveLength(59);
  });

  it('makes each failure an error once it has failed for a minute without a success, and logs the recovery', () => {
    const { logger, lines } = recordingLogger();
    let now = 0;
    const streak = new FailureStreak(logger, 'batch failed; retrying', 60_000, () => now);
    streak.failed(new Error('permission denied'));
    now = 60_000;
    streak.failed(new Error('permission denied'));
    now = 61_000;
    streak.failed(new Error('permission denied'));
    streak.succeeded();
    expect(lines.map((l) => `${l.level}: ${l.message}`)).toEqual([
      'warn: batch failed; retrying',
      'error: batch failed; retrying',
      'error: batch failed; retrying',
      'info: recovered: batch failed; retrying',
    ]);
  });

  it('counts a streak from its first failure after a success, not from an earlier streak', () => {
    const { logger, lines } = recordingLogger();
    let now = 0;
    const streak = new FailureStreak(logger, 'claim failed', 60_000, () => now);
    streak.failed(new Error('a'));
    now = 50_000;
    streak.succeeded();
    now = 100_000;
    streak.failed(new Error('b'));
    expect(lines.map((l) => l.level)).toEqual(['warn', 'warn']);
  });
});
