import { context, propagation, type Context } from '@opentelemetry/api';

let sdk: { shutdown(): Promise<void> } | undefined;

/** Whether spans are recorded and exported (OTEL_EXPORTER_OTLP_ENDPOINT was set at start). */
export function tracingEnabled(): boolean {
  return sdk !== undefined;
}

/**
 * Starts tracing when `OTEL_EXPORTER_OTLP_ENDPOINT` (or `..._TRACES_ENDPOINT`) is set. Must run
 * before `http` and `pg` are first required (each service's `tracing.ts` is its main's first
 * import). Without the endpoint the SDK is not even loaded: the API's calls are no-ops and no span
 * is ever built, so tracing off costs nothing measurable.
 */
export function startTracing(serviceName: string, env: NodeJS.ProcessEnv = process.env): boolean {
  if (sdk || !(env['OTEL_EXPORTER_OTLP_ENDPOINT'] || env['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'])) return tracingEnabled();
  // A synchronous require on purpose: the instrumentations must be in place before this returns.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { registerTracing } = require('./tracing-sdk') as typeof import('./tracing-sdk');
  sdk = registerTracing(serviceName, env);
  return true;
}

/** Sends the spans still buffered; called on shutdown. */
export async function stopTracing(): Promise<void> {
  await sdk?.shutdown();
}

/** The W3C `traceparent` of `ctx` (the active context by default); null when nothing is traced. */
export function traceparentOf(ctx: Context = context.active()): string | null {
  const carrier: Record<string, string> = {};
  propagation.inject(ctx, carrier);
  return carrier['traceparent'] ?? null;
}

/** The context a `traceparent` header names, to start spans under. */
export function contextOf(traceparent: string): Context {
  return propagation.extract(context.active(), { traceparent });
}
