import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';

/** Paths polled by probes and scrapers: a span each would drown the traces of real work. */
const UNTRACED_PATHS = /^\/(health|metrics)(\/|$)/;

/**
 * The OpenTelemetry SDK as the services use it: spans over OTLP/HTTP (the exporter reads
 * OTEL_EXPORTER_OTLP_* itself), HTTP servers and clients and PostgreSQL statements traced
 * automatically, W3C trace context. Loaded only when tracing is on (see `startTracing`).
 */
export function registerTracing(serviceName: string, env: NodeJS.ProcessEnv): { shutdown(): Promise<void> } {
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: env['OTEL_SERVICE_NAME'] || serviceName }),
    // OTEL_BSP_SCHEDULE_DELAY as the specification names it: how long spans wait to be sent together.
    spanProcessors: [new BatchSpanProcessor({ exporter: new OTLPTraceExporter(), scheduledDelayMillis: Number(env['OTEL_BSP_SCHEDULE_DELAY'] ?? 5000) })],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      new HttpInstrumentation({ ignoreIncomingRequestHook: (req) => UNTRACED_PATHS.test(req.url ?? '') }),
      // Statements outside any traced work (pollers, followers waiting) would each be a trace of their own.
      new PgInstrumentation({ requireParentSpan: true }),
    ],
  });
  return provider;
}
