import { QueryRunnerAlreadyReleasedError } from 'typeorm';
import { COMMAND_RETRY_POLICY, isTransientDatabaseError, withCommandRetry } from './command-pipeline.retry-policy';
import { ConcurrencyError } from './event-store';

const failing = (errors: unknown[]) => {
  let tries = 0;
  const work = async () => {
    const error = errors[tries++];
    if (error !== undefined) throw error;
    return tries;
  };
  return { work, tries: () => tries };
};
const conflict = () => new ConcurrencyError('stream-1 moved on');
const outage = () => Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' });

describe('withCommandRetry', () => {
  it('decides again after a conflict, up to the policy, then lets the conflict through', async () => {
    expect(await withCommandRetry('fail', failing([conflict(), conflict()]).work)).toBe(3);
    const always = failing(Array.from({ length: 10 }, conflict));
    await expect(withCommandRetry('fail', always.work)).rejects.toBeInstanceOf(ConcurrencyError);
    expect(always.tries()).toBe(COMMAND_RETRY_POLICY.conflictAttempts);
  });

  it('tells the work how many times it lost to another writer', async () => {
    const seen: number[] = [];
    const { work } = failing([conflict(), conflict()]);
    await withCommandRetry('fail', async (retry) => {
      seen.push(retry.conflicts);
      return work();
    });
    expect(seen).toEqual([0, 1, 2]);
  });

  it('waits out an outage only when asked to, and never retries a refusal', async () => {
    await expect(withCommandRetry('fail', failing([outage()]).work)).rejects.toThrow('terminating connection');
    expect(await withCommandRetry('wait', failing([outage()]).work)).toBe(2);
    const refused = failing([new Error('refused')]);
    await expect(withCommandRetry('wait', refused.work)).rejects.toThrow('refused');
    expect(refused.tries()).toBe(1);
  });
});

describe('isTransientDatabaseError', () => {
  it('tells an outage from a refusal or a statement error', () => {
    expect(isTransientDatabaseError(outage())).toBe(true);
    expect(isTransientDatabaseError(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }))).toBe(true);
    expect(isTransientDatabaseError(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isTransientDatabaseError(new QueryRunnerAlreadyReleasedError())).toBe(true);
    expect(isTransientDatabaseError(Object.assign(new Error('query failed'), { driverError: { code: '40001' } }))).toBe(true);
    expect(isTransientDatabaseError(Object.assign(new Error('syntax error'), { code: '42601' }))).toBe(false);
    expect(isTransientDatabaseError(new Error('no such verification'))).toBe(false);
    expect(isTransientDatabaseError('down')).toBe(false);
  });
});
