import { startStack, type RunningStack } from '@seed/platform-testing';
import { SmsBatchDb } from './database';

export interface StackContext {
  readonly stack: RunningStack;
  readonly db: SmsBatchDb;
}

/**
 * One stack for the calling test file: started in beforeAll, stopped in afterAll. The stop also
 * happens when the start outlived its hook, so a slow start never leaves five processes behind
 * (which would keep Jest from exiting).
 */
export function useStack(extraEnv: Record<string, string> = {}): StackContext {
  return useStarted(() => startStack(extraEnv));
}

/** Any stack a test file starts once and stops at its end, with a look into its sms-batch schema. */
export function useStarted<T extends RunningStack>(start: () => Promise<T>): { readonly stack: T; readonly db: SmsBatchDb } {
  let starting: Promise<T> | undefined;
  let stack: T | undefined;
  let db: SmsBatchDb | undefined;

  beforeAll(async () => {
    starting = start();
    stack = await starting;
    db = new SmsBatchDb(stack);
  });

  afterAll(async () => {
    await db?.close();
    const started = await starting?.catch(() => undefined);
    await started?.stop();
  });

  return {
    get stack() {
      if (!stack) throw new Error('the stack is not started');
      return stack;
    },
    get db() {
      if (!db) throw new Error('the stack is not started');
      return db;
    },
  };
}
