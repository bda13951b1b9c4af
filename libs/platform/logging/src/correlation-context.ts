import { AsyncLocalStorage } from 'node:async_hooks';

/** What ties one user request to every log line and message it causes, across services. */
export interface CorrelationContext {
  correlationId: string;
  causationId?: string | null;
  traceparent?: string | null;
}

const storage = new AsyncLocalStorage<CorrelationContext>();

export function runWithCorrelation<T>(context: CorrelationContext, work: () => T): T {
  return storage.run(context, work);
}

export function currentCorrelation(): CorrelationContext | undefined {
  return storage.getStore();
}
