export { contextOf, startTracing, stopTracing, traceparentOf, tracingEnabled } from './tracing';
export { inSpan, onwardTraceparent, SpanKind, spansFor, type SpanOptions } from './spans';
